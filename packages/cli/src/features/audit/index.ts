import type { Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { relative, table } from '../../framework/format.ts';

/** `appliance audit [--limit N]`: the audit log, newest first (08 §11). */
export const register: Register = (_root, app) => {
  app
    .group('audit', 'The audit log, newest first')
    .option('--limit <n>', 'how many entries (1–500)', '20')
    .action(
      app.action<{ limit: string }>(async (ctx, o) => {
        const limit = Number(o.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500)
          throw new UsageError('--limit takes 1 to 500');
        const res = await ctx.client.get('/audit', { query: { limit: String(limit) } });
        ctx.out(res, () =>
          table(
            ['when', 'actor', 'operation', 'target', 'outcome'],
            res.entries.map((e) => [relative(e.at), e.actor, e.operation, e.target, e.outcome]),
          ),
        );
      }),
    );
};
