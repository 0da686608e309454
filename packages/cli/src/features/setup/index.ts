import type { Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { interactive } from '../../framework/io.ts';
import { readStdin } from '../../framework/lookup.ts';
import { ask } from '../../framework/prompt.ts';

/** `appliance admin create` (POST /setup/admin, 08 §2). */
export const register: Register = (_root, app) => {
  app
    .group('admin', 'The one administrator account')
    .command('create')
    .description('create the administrator (asks for the password twice on a terminal)')
    .requiredOption('--username <name>', 'the administrator name')
    .option('--password-stdin', 'read the password from standard input')
    .action(
      app.action<{ username: string; passwordStdin?: boolean }>(async (ctx, o) => {
        let password: string;
        if (o.passwordStdin) password = await readStdin(ctx);
        else if (interactive(ctx.io)) {
          const first = await ask(ctx.io, 'Password: ', true);
          const second = first === null ? null : await ask(ctx.io, 'Repeat password: ', true);
          if (first === null || second === null) throw new UsageError('no password was given');
          if (first !== second) throw new UsageError('the passwords do not match');
          password = first;
        } else
          throw new UsageError(
            'no terminal to ask for the password: pass --password-stdin and write it to standard input',
          );
        const res = await ctx.client.post('/setup/admin', { body: { username: o.username, password } });
        ctx.out(res, () => '');
        ctx.note(`Created the administrator ${res.user.username}.`);
      }),
    );
};
