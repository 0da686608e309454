import type { Register } from '../../framework/command.ts';
import { relative, table } from '../../framework/format.ts';

/** Seconds as the settings give them: `5s`, `1m`, `1h`, `1d`. */
export function every(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** `appliance health` (GET /health): each watcher, its last run and failure, the conditions that hold. */
export const register: Register = (_root, app) => {
  app
    .group(
      'health',
      'What the appliance watches: each watcher, its last run, and the conditions that hold now',
    )
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/health');
        ctx.out(res, () => {
          const watchers = table(
            ['watcher', 'every', 'last run', 'state'],
            res.watchers.map((w) => [
              w.name,
              every(w.intervalSeconds),
              relative(w.lastRunAt),
              !w.enabled
                ? `off: ${w.disabledReason ?? 'not configured'}`
                : w.error
                  ? `FAILING since ${relative(w.error.since)}: ${w.error.message}`
                  : w.lastRunAt
                    ? 'ok'
                    : 'not run yet',
            ]),
          );
          const notes = res.watchers.flatMap((w) =>
            w.notes.map((n) => `${w.name}: ${n.subject}: ${n.message}`),
          );
          const conditions =
            res.conditions.length === 0
              ? 'No condition holds.'
              : table(
                  ['event', 'thing', 'value', 'since'],
                  res.conditions.map((c) => [c.eventType, c.subject, c.value ?? '-', relative(c.since)]),
                );
          const lines = [
            watchers.trimEnd(),
            ...(notes.length > 0 ? ['', 'Notes:', ...notes] : []),
            '',
            conditions.trimEnd(),
          ];
          return `${lines.join('\n')}\n`;
        });
      }),
    );
};
