import type { Register } from '../../framework/command.ts';
import { collect } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { fields, relative, table } from '../../framework/format.ts';
import { interactive } from '../../framework/io.ts';
import { accessLevel, oneOf, pair, readStdin, userByName } from '../../framework/lookup.ts';
import { ask } from '../../framework/prompt.ts';

/** `appliance users list|create` and `users permissions show|set` (08 §4, 06 §3). */
export const register: Register = (_root, app) => {
  const users = app.group('users', 'User accounts and their share access');
  users
    .command('list')
    .description('list users')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/users');
        ctx.out(res, () =>
          table(
            ['username', 'role', 'password', 'created'],
            res.users.map((u) => [u.username, u.role, u.hasPassword ? 'set' : 'none', relative(u.createdAt)]),
          ),
        );
      }),
    );
  users
    .command('create')
    .description('create a viewer or file-sharing (share-only) account')
    .argument('<username>', 'letters, digits, _ and -, up to 32, starting with a letter or _')
    .option('--role <role>', 'viewer or share-only', 'share-only')
    .option('--password-stdin', 'read the password from standard input')
    .option('--password-prompt', 'ask for the password on the terminal (twice)')
    .action(
      app.action<{ role: string; passwordStdin?: boolean; passwordPrompt?: boolean }>(
        async (ctx, o, [username]) => {
          const role = oneOf('--role', o.role, ['viewer', 'share-only'] as const)!;
          let password: string | undefined;
          if (o.passwordStdin) password = await readStdin(ctx);
          else if (o.passwordPrompt) {
            if (!interactive(ctx.io))
              throw new UsageError('--password-prompt needs a terminal; use --password-stdin');
            const first = await ask(ctx.io, 'Password: ', true);
            const second = first === null ? null : await ask(ctx.io, 'Repeat password: ', true);
            if (first === null || first !== second) throw new UsageError('the passwords do not match');
            password = first;
          }
          const user = await ctx.client.post('/users', {
            body: { username: username!, role, ...(password !== undefined ? { password } : {}) },
          });
          ctx.out(user, () =>
            fields([
              ['username', user.username],
              ['role', user.role],
              ['password', user.hasPassword ? 'set' : 'none'],
              ['id', user.id],
            ]),
          );
        },
      ),
    );

  const perms = users.command('permissions').description("a user's own share access rows");
  perms
    .command('show')
    .description("show a user's own access rows")
    .argument('<username>')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const user = await userByName(ctx, name!);
        const res = await ctx.client.get('/users/{id}/permissions', { params: { id: user.id } });
        ctx.out(res, () =>
          res.permissions.length === 0
            ? `${res.username} has no share access of its own.\n`
            : table(
                ['share', 'access'],
                res.permissions.map((p) => [p.shareName, p.access]),
              ),
        );
      }),
    );
  perms
    .command('set')
    .description(
      "set a user's access to shares (the named shares change, the others stay; --replace drops the others)",
    )
    .argument('<username>')
    .option(
      '--share <name=access>',
      'share and access: read-write, read-only or none (repeatable)',
      collect,
      [],
    )
    .option('--replace', 'the listed shares become the whole list (others are removed)')
    .action(
      app.action<{ share: string[]; replace?: boolean }>(async (ctx, o, [name]) => {
        if (o.share.length === 0 && !o.replace)
          throw new UsageError('give at least one --share NAME=ACCESS (or --replace with none to clear)');
        const wanted = o.share.map((t) => {
          const [share, access] = pair('--share', t);
          return { shareName: share, access: accessLevel('--share', access) };
        });
        const user = await userByName(ctx, name!);
        const current = o.replace
          ? []
          : (await ctx.client.get('/users/{id}/permissions', { params: { id: user.id } })).permissions;
        const merged = new Map(current.map((p) => [p.shareName, p.access]));
        for (const w of wanted) merged.set(w.shareName, w.access);
        const res = await ctx.client.put('/users/{id}/permissions', {
          params: { id: user.id },
          body: { permissions: [...merged].map(([shareName, access]) => ({ shareName, access })) },
        });
        ctx.out(res, () =>
          table(
            ['share', 'access'],
            res.permissions.map((p) => [p.shareName, p.access]),
          ),
        );
      }),
    );
};
