import type { ResponseOf } from '@appliance/client';
import type { Register } from '../../framework/command.ts';
import { fields, iec, relative } from '../../framework/format.ts';
import { followJob, jobHelp, jobLine } from '../../framework/jobs.ts';
import { jobExit, jobText } from '../jobs/index.ts';

type Status = ResponseOf<'get', '/mover'>;

const REASONS: Record<string, string> = {
  open_for_writing: 'open for writing',
  exists_on_array: 'already on a data disk',
  no_space: 'no data disk has room',
  changed_during_move: 'changed while being moved',
  copy_failed: 'could not be copied',
};

interface RunResult {
  movedFiles: number;
  movedBytes: number;
  skippedCount: number;
  skipped: { share: string; path: string; reason: string }[];
}

function skippedLines(skipped: RunResult['skipped'], count: number, max = 20): string {
  if (count === 0) return '';
  const lines = skipped
    .slice(0, max)
    .map((s) => `  /mnt/user/${s.share}/${s.path}: ${REASONS[s.reason] ?? s.reason}`);
  const more = count > lines.length ? `\n  … and ${count - lines.length} more (appliance mover --json)` : '';
  return `Skipped (left on the cache):\n${lines.join('\n')}${more}\n`;
}

/** `appliance mover`: the last run, what it moved and skipped, the next run. */
export function statusText(s: Status): string {
  const last = s.lastRun;
  const head = fields([
    ['cache', s.configured ? 'yes' : 'no cache disk: nothing to move'],
    ['shares', s.shares.length > 0 ? s.shares.join(', ') : 'no cache-then-move share'],
    ['schedule', s.settings.enabled ? `daily at ${s.settings.time}, verify ${s.settings.verify}` : 'off'],
    [
      'last run',
      last
        ? `${relative(last.endedAt)}, ${last.state}${last.movedFiles !== null ? `, moved ${last.movedFiles} files (${iec(last.movedBytes ?? 0)})` : ''}${last.skippedCount ? `, skipped ${last.skippedCount}` : ''}${last.error ? ` — ${last.error.message}` : ''}`
        : 'never',
    ],
    ['running', s.running ? `${jobLine(s.running)} (job ${s.running.id})` : null],
    ['next run', s.nextRun ? relative(s.nextRun) : null],
  ]);
  return last ? head + skippedLines(last.skipped, last.skippedCount ?? 0) : head;
}

/** `appliance mover [status]` and `appliance mover run` (issue 37). */
export const register: Register = (_root, app) => {
  const mover = app.group(
    'mover',
    'The mover: files of cache-then-move shares from the cache to the data disks',
  );
  mover
    .command('status', { isDefault: true })
    .description('last run (moved, skipped and why), running job, next run')
    .action(
      app.action(async (ctx) => {
        const s = await ctx.client.get('/mover');
        ctx.out(s, () => statusText(s));
      }),
    );
  mover
    .command('run')
    .description('move now (files open for writing, already on a data disk or fitting nowhere stay)')
    .option(
      '--verify',
      'compare SHA-256 of both copies before removing the cache copy (default: size and mtime)',
    )
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      jobHelp('the files and bytes moved', 'mover.run /mnt/cache: move 42% · 1.2 GiB of 2.8 GiB'),
    )
    .action(
      app.action<{ verify?: boolean; wait: boolean }>(async (ctx, o) => {
        const body = o.verify ? { verify: 'sha256' as const } : {};
        if (!o.wait) {
          const job = await ctx.client.post('/mover/run', { body });
          return ctx.out(
            job,
            () => `Started the mover: job ${job.id} (appliance jobs show ${job.id} --follow).\n`,
          );
        }
        const job = await followJob(ctx, {
          what: 'the mover',
          start: () => ctx.client.post('/mover/run', { body }),
        });
        const r = job.result as RunResult | null;
        ctx.out(job, () =>
          job.state === 'succeeded' && r
            ? `Moved ${r.movedFiles} files (${iec(r.movedBytes)}) to the data disks.\n${skippedLines(r.skipped, r.skippedCount)}`
            : jobText(job),
        );
        jobExit(job);
      }),
    );
};
