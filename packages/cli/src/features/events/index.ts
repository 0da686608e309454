import type { Register } from '../../framework/command.ts';
import { iec } from '../../framework/format.ts';

/** `appliance events [--progress] [--notifications]`: follow GET /events until Ctrl-C. */
export const register: Register = (_root, app) => {
  app
    .group('events', 'Follow notifications and the progress of long operations (until Ctrl-C)')
    .option('--progress', 'only progress events')
    .option('--notifications', 'only notifications')
    .action(
      app.action<{ progress?: boolean; notifications?: boolean }>(async (ctx, o) => {
        const stream = ctx.client.events();
        process.once('SIGINT', () => stream.close());
        await stream.connected;
        if (!ctx.json) ctx.note('Following events; Ctrl-C stops.');
        for await (const e of stream) {
          if (e.type === 'progress' && o.notifications) continue;
          if (e.type === 'notification' && o.progress) continue;
          if (ctx.json) {
            ctx.io.stdout.write(`${JSON.stringify(e)}\n`);
            continue;
          }
          if (e.type === 'notification') {
            const n = e.data;
            ctx.io.stdout.write(
              `${n.occurredAt} ${n.severity.toUpperCase()} ${n.eventType}: ${n.title} — ${n.message}\n`,
            );
          } else {
            const p = e.data;
            const parts = Object.entries(p.progress).map(([k, v]) =>
              k.toLowerCase().includes('bytes') && typeof v === 'number'
                ? `${k}=${iec(v)}`
                : `${k}=${String(v)}`,
            );
            ctx.io.stdout.write(`${p.operation} ${p.target}${p.done ? ' (done)' : ''}: ${parts.join(' ')}\n`);
          }
        }
      }),
    );
};
