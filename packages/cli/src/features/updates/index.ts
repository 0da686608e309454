import type { ResponseOf } from '@appliance/client';
import type { Register } from '../../framework/command.ts';
import { UsageError } from '../../framework/exit.ts';
import { fields, relative, table } from '../../framework/format.ts';
import { followJob } from '../../framework/jobs.ts';
import { jobExit, jobText } from '../jobs/index.ts';

type Updates = ResponseOf<'get', '/updates'>;
type Reboot = ResponseOf<'get', '/system/reboot'>;

/** `appliance updates`: the last check, what is pending (security first), the last apply. */
export function updatesText(u: Updates): string {
  const head = fields([
    [
      'last check',
      u.checkedAt ? `${relative(u.checkedAt)}${u.checkError ? ` — FAILED: ${u.checkError}` : ''}` : 'never',
    ],
    ['next check', u.nextCheckAt ? relative(u.nextCheckAt) : 'off'],
    [
      'pending',
      `${u.pending.length} package${u.pending.length === 1 ? '' : 's'}${u.security.length > 0 ? `, ${u.security.length} security` : ''}`,
    ],
    [
      'last apply',
      u.lastApply
        ? `${relative(u.lastApply.endedAt)}, ${u.lastApply.state}${u.lastApply.error ? ` — ${u.lastApply.error.message}` : ''}`
        : 'never',
    ],
    ['running', u.running ? `${u.running.type} (job ${u.running.id})` : null],
  ]);
  if (u.pending.length === 0) return head;
  const sorted = [...u.pending].sort(
    (a, b) => Number(b.security) - Number(a.security) || a.name.localeCompare(b.name),
  );
  return `${head}\n${table(
    ['package', 'installed', 'candidate', 'security'],
    sorted.map((p) => [p.name, p.from, p.to, p.security ? 'yes' : '']),
  )}`;
}

export function rebootText(r: Reboot): string {
  return fields([
    ['reboot required', r.required ? `yes: ${r.packages.join(', ') || 'see the reason'}` : 'no'],
    [
      'scheduled',
      r.scheduledAt ? `${r.scheduledAt} (${relative(r.scheduledAt)}, by ${r.scheduledBy})` : 'no',
    ],
  ]);
}

/** `appliance updates [check|apply]`, `appliance system reboot` (issue 38). */
export const register: Register = (_root, app) => {
  const updates = app.group('updates', "Updates of the appliance's Debian packages through apt");
  updates
    .command('show', { isDefault: true })
    .description('the last check, the upgradable packages (security ones first), the last apply')
    .action(
      app.action(async (ctx) => {
        const u = await ctx.client.get('/updates');
        ctx.out(u, () => updatesText(u));
      }),
    );
  for (const [name, what, path, description] of [
    ['check', 'the update check', '/updates/check', 'check now: apt-get update, then a simulated upgrade'],
    [
      'apply',
      'the update',
      '/updates/apply',
      'apply the updates: a configuration archive first, then apt-get upgrade (never during an array job)',
    ],
  ] as const)
    updates
      .command(name)
      .description(description)
      .option('--no-wait', 'print the job and return at once')
      .action(
        app.action<{ wait: boolean }>(async (ctx, o) => {
          if (!o.wait) {
            const job = await ctx.client.post(path, { body: {} });
            return ctx.out(
              job,
              () => `Started ${what}: job ${job.id} (appliance jobs show ${job.id} --follow).\n`,
            );
          }
          const job = await followJob(ctx, { what, start: () => ctx.client.post(path, { body: {} }) });
          ctx.out(job, () => jobText(job));
          jobExit(job);
        }),
      );

  const system = app.group('system', 'The machine: reboot required, a scheduled reboot');
  system
    .command('reboot')
    .description(
      'schedule a reboot (it waits for any array job to end), or cancel it; without options: the state',
    )
    .option('--at <time>', 'when: an RFC 3339 time, e.g. 2026-01-31T03:00:00Z (at most 30 days ahead)')
    .option('--now', 'reboot as soon as no array job runs')
    .option('--cancel', 'cancel the scheduled reboot')
    .action(
      app.action<{ at?: string; now?: boolean; cancel?: boolean }>(async (ctx, o) => {
        if ([o.at !== undefined, o.now, o.cancel].filter(Boolean).length > 1)
          throw new UsageError('give one of --at <time>, --now or --cancel');
        const r = o.cancel
          ? await ctx.client.delete('/system/reboot')
          : o.at !== undefined || o.now
            ? await ctx.client.post('/system/reboot', { body: o.at !== undefined ? { at: o.at } : {} })
            : await ctx.client.get('/system/reboot');
        ctx.out(r, () => rebootText(r));
      }),
    );
};
