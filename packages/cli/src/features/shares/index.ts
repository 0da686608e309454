import type { Register } from '../../framework/command.ts';
import { collect } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { fields, relative, table } from '../../framework/format.ts';
import { type Access, accessLevel, groupsByName, oneOf, pair, userByName } from '../../framework/lookup.ts';

const CACHE_MODES = ['cache-then-move', 'cache-only', 'array-only'] as const;
const POLICIES = ['mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'] as const;

/** `appliance shares list|create|delete` and `shares permissions show|set` (08 §6, 06). */
export const register: Register = (_root, app) => {
  const shares = app.group('shares', 'Shares, their access and their data');
  shares
    .command('list')
    .description('list shares')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/shares');
        ctx.out(res, () =>
          table(
            ['name', 'cache mode', 'policy', 'smb', 'path', 'created'],
            res.shares.map((s) => [
              s.name,
              s.cacheMode,
              s.createPolicy,
              s.smb.enabled ? (s.smb.browseable ? 'on' : 'hidden') : 'off',
              s.path,
              relative(s.createdAt),
            ]),
          ),
        );
      }),
    );
  shares
    .command('create')
    .description('create a share (closed until access is granted)')
    .argument('<name>', 'letters, digits, _ and -, up to 64')
    .option('--cache-mode <mode>', CACHE_MODES.join(' | '))
    .option('--create-policy <policy>', POLICIES.join(' | '))
    .option('--no-smb', 'do not share it over SMB')
    .option('--hidden', 'not browseable (reachable by name only)')
    .action(
      app.action<{ cacheMode?: string; createPolicy?: string; smb: boolean; hidden?: boolean }>(
        async (ctx, o, [name]) => {
          const cacheMode = oneOf('--cache-mode', o.cacheMode, CACHE_MODES);
          const createPolicy = oneOf('--create-policy', o.createPolicy, POLICIES);
          const share = await ctx.client.post('/shares', {
            body: {
              name: name!,
              ...(cacheMode ? { cacheMode } : {}),
              ...(createPolicy ? { createPolicy } : {}),
              ...(!o.smb || o.hidden ? { smb: { enabled: o.smb, browseable: !o.hidden } } : {}),
            },
          });
          ctx.out(share, () =>
            fields([
              ['share', share.name],
              ['path', share.path],
              ['cache mode', share.cacheMode],
              ['create policy', share.createPolicy],
              ['smb', share.smb.enabled ? (share.smb.browseable ? 'on' : 'hidden') : 'off'],
            ]),
          );
          if (!ctx.json)
            ctx.note(
              `Nobody has access yet: appliance shares permissions set ${share.name} --user NAME=read-write`,
            );
        },
      ),
    );
  shares
    .command('delete')
    .description('delete a share definition and its grants (its files stay: see delete-data)')
    .argument('<name>')
    .action(
      app.action(async (ctx, _o, [name]) => {
        await ctx.client.delete('/shares/{name}', { params: { name: name! } });
        ctx.note(
          `Share ${name} deleted; its files stay on the disks (appliance shares delete-data removes them).`,
        );
      }),
    );

  const perms = shares.command('permissions').description("a share's per-user and per-group access");
  perms
    .command('show')
    .description("show a share's grants and every user's effective access")
    .argument('<share>')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const res = await ctx.client.get('/shares/{name}/permissions', { params: { name: name! } });
        if (ctx.json) return ctx.out(res, () => '');
        const effective = await ctx.client.get('/shares/{name}/access', { params: { name: name! } });
        const grants = [
          ...res.users.map((u) => ['user', u.username, u.access]),
          ...res.groups.map((g) => ['group', g.name, g.access]),
        ];
        ctx.io.stdout.write(
          grants.length ? table(['kind', 'name', 'access'], grants) : `No grants on ${name}.\n`,
        );
        const open = effective.users.filter((u) => u.access !== 'none');
        if (open.length > 0)
          ctx.io.stdout.write(
            `\nEffective access${effective.available ? '' : ' (share not available over SMB)'}:\n${table(
              ['user', 'access', 'from'],
              open.map((u) => [u.username, u.access, u.source]),
            )}`,
          );
      }),
    );
  perms
    .command('set')
    .description(
      'grant access by name (the named users and groups change, the others stay; --replace drops the others)',
    )
    .argument('<share>')
    .option(
      '--user <name=access>',
      'user and access: read-write, read-only or none (repeatable)',
      collect,
      [],
    )
    .option('--group <name=access>', 'group and access (repeatable)', collect, [])
    .option('--replace', 'the listed grants become the whole list')
    .action(
      app.action<{ user: string[]; group: string[]; replace?: boolean }>(async (ctx, o, [name]) => {
        if (o.user.length + o.group.length === 0 && !o.replace)
          throw new UsageError('give at least one --user NAME=ACCESS or --group NAME=ACCESS');
        const users = o.user.map((t) => {
          const [n, a] = pair('--user', t);
          return [n, accessLevel('--user', a)] as const;
        });
        const groups = o.group.map((t) => {
          const [n, a] = pair('--group', t);
          return [n, accessLevel('--group', a)] as const;
        });
        const current = o.replace
          ? { users: [], groups: [] }
          : await ctx.client.get('/shares/{name}/permissions', { params: { name: name! } });
        const userMap = new Map<string, Access>(current.users.map((u) => [u.userId, u.access]));
        const groupMap = new Map<string, Access>(current.groups.map((g) => [g.groupId, g.access]));
        for (const [n, a] of users) userMap.set((await userByName(ctx, n)).id, a);
        if (groups.length > 0) {
          const byName = await groupsByName(ctx);
          for (const [n, a] of groups) groupMap.set(byName(n).id, a);
        }
        const res = await ctx.client.put('/shares/{name}/permissions', {
          params: { name: name! },
          body: {
            users: [...userMap].map(([userId, access]) => ({ userId, access })),
            groups: [...groupMap].map(([groupId, access]) => ({ groupId, access })),
          },
        });
        ctx.out(res, () =>
          table(
            ['kind', 'name', 'access'],
            [
              ...res.users.map((u) => ['user', u.username, u.access]),
              ...res.groups.map((g) => ['group', g.name, g.access]),
            ],
          ),
        );
      }),
    );
};
