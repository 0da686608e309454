import type { Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { relative, table } from '../../framework/format.ts';
import { oneOf } from '../../framework/lookup.ts';

/** `appliance token create|list|revoke` (08 §3). */
export const register: Register = (_root, app) => {
  const token = app.group('token', 'API tokens');
  token
    .command('create')
    .description('create a token (of the admin account over the socket) and print only the token')
    .requiredOption('--name <name>', 'what the token is for, e.g. laptop')
    .option('--role <role>', 'admin or viewer', 'admin')
    .option('--expires-in <seconds>', 'lifetime in seconds (default: no expiry)')
    .action(
      app.action<{ name: string; role: string; expiresIn?: string }>(async (ctx, o) => {
        const role = oneOf('--role', o.role, ['admin', 'viewer'] as const)!;
        if (o.expiresIn !== undefined && !/^\d+$/.test(o.expiresIn))
          throw new UsageError('--expires-in takes a whole number of seconds');
        const res = await ctx.client.post('/tokens', {
          body: {
            name: o.name,
            role,
            ...(o.expiresIn !== undefined ? { expiresInSeconds: Number(o.expiresIn) } : {}),
          },
        });
        ctx.out(res, () => `${res.token}\n`);
        ctx.note(`Token ${res.id} created; it is shown only once.`);
      }),
    );
  token
    .command('list')
    .description('list tokens (never their values)')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/tokens');
        ctx.out(res, () =>
          table(
            ['id', 'name', 'role', 'owner', 'created', 'expires'],
            res.tokens.map((t) => [
              t.id,
              t.name,
              t.role,
              t.username,
              relative(t.createdAt),
              relative(t.expiresAt),
            ]),
          ),
        );
      }),
    );
  token
    .command('revoke')
    .description('revoke a token at once')
    .argument('<id>', 'the token id (see token list)')
    .action(
      app.action(async (ctx, _o, [id]) => {
        await ctx.client.delete('/tokens/{id}', { params: { id: id! } });
        ctx.note(`Token ${id} revoked.`);
      }),
    );
};
