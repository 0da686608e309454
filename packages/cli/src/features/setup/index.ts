import type { App, Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { interactive } from '../../framework/io.ts';
import { readStdin } from '../../framework/lookup.ts';
import { ask } from '../../framework/prompt.ts';

type Ctx = Parameters<Parameters<App['action']>[0]>[0];

/** A new password: asked twice on a terminal, or read from standard input with --password-stdin. */
async function newPassword(ctx: Ctx, fromStdin: boolean | undefined): Promise<string> {
  if (fromStdin) return readStdin(ctx);
  if (!interactive(ctx.io))
    throw new UsageError(
      'no terminal to ask for the password: pass --password-stdin and write it to standard input',
    );
  const first = await ask(ctx.io, 'Password: ', true);
  const second = first === null ? null : await ask(ctx.io, 'Repeat password: ', true);
  if (first === null || second === null) throw new UsageError('no password was given');
  if (first !== second) throw new UsageError('the passwords do not match');
  return first;
}

/**
 * `appliance admin create` (POST /setup/admin, 08 §2) and `appliance admin reset-password`
 * (POST /admin/reset-password, served on the Unix socket only: it is run on the appliance).
 */
export const register: Register = (_root, app) => {
  const admin = app.group('admin', 'The one administrator account');
  admin
    .command('create')
    .description('create the administrator (asks for the password twice on a terminal)')
    .requiredOption('--username <name>', 'the administrator name')
    .option('--password-stdin', 'read the password from standard input')
    .action(
      app.action<{ username: string; passwordStdin?: boolean }>(async (ctx, o) => {
        const password = await newPassword(ctx, o.passwordStdin);
        const res = await ctx.client.post('/setup/admin', { body: { username: o.username, password } });
        ctx.out(res, () => '');
        ctx.note(`Created the administrator ${res.user.username}.`);
      }),
    );
  admin
    .command('reset-password')
    .description(
      "reset the administrator's password on the appliance itself, over the service's socket (asks twice on a terminal); raises credential_reset",
    )
    .option('--password-stdin', 'read the new password from standard input')
    .option('--revoke-tokens', 'also revoke every API token of the administrator')
    .action(
      app.action<{ passwordStdin?: boolean; revokeTokens?: boolean }>(async (ctx, o) => {
        const password = await newPassword(ctx, o.passwordStdin);
        const res = await ctx.client.post('/admin/reset-password', {
          body: { password, revokeTokens: o.revokeTokens === true },
        });
        ctx.out(res, () => '');
        const revoked =
          res.tokensRevoked > 0
            ? ` and revoked ${res.tokensRevoked} API token${res.tokensRevoked === 1 ? '' : 's'}`
            : '';
        ctx.note(`Reset the password of the administrator ${res.user.username}${revoked}.`);
      }),
    );
};
