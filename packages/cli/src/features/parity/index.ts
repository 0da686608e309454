import type { ResponseOf } from '@appliance/client';
import type { Register } from '../../framework/command.ts';
import { Refusal, UsageError } from '../../framework/exit.ts';
import { fields, iec, relative } from '../../framework/format.ts';
import { followJob, jobHelp, jobLine } from '../../framework/jobs.ts';
import { jobExit, jobText } from '../jobs/index.ts';

type Status = ResponseOf<'get', '/disks/array/parity'>;

const PARITY: Record<Status['parity'], string> = {
  not_configured: 'no array with a parity disk',
  never_synced: 'NEVER SYNCED: the files are not protected yet (appliance array sync)',
  in_sync: 'in sync',
  changes_pending: 'changes pending (the next sync protects them)',
};

function changesText(c: NonNullable<Status['changes']>): string {
  const parts = (['added', 'removed', 'updated', 'moved', 'copied', 'restored'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`);
  return `${parts.length > 0 ? parts.join(', ') : 'none'} (diff ${relative(c.at)})`;
}

/** `appliance array parity`: the status as a table of facts. */
export function statusText(s: Status): string {
  const sync = s.lastSync;
  const scrub = s.lastScrub;
  return fields([
    [
      'parity',
      s.parity === 'changes_pending' && s.blockedSince
        ? 'changes pending, NOT protected: the deletion guard blocks every sync (see "blocked since")'
        : PARITY[s.parity],
    ],
    [
      'last sync',
      sync
        ? `${relative(sync.endedAt)}, ${sync.state}${sync.forced ? ' (forced)' : ''}${sync.bytes !== null ? `, ${iec(sync.bytes)}` : ''}${sync.seconds !== null ? ` in ${sync.seconds} s` : ''}${sync.error ? ` — ${sync.error.message}` : ''}`
        : null,
    ],
    ['last good sync', s.lastSuccessfulSyncAt ? relative(s.lastSuccessfulSyncAt) : 'never'],
    ['changes', s.changes ? changesText(s.changes) : null],
    [
      'blocked since',
      s.blockedSince ? `${relative(s.blockedSince)} (appliance array sync --force to accept)` : null,
    ],
    [
      'last scrub',
      scrub
        ? `${relative(scrub.endedAt)}, ${scrub.state}, ${scrub.percent}% of data older than ${scrub.olderThanDays} days, ${errorCount((scrub.dataErrors ?? 0) + (scrub.ioErrors ?? 0) + (scrub.fileErrors ?? 0))}`
        : null,
    ],
    ['oldest scrub', s.oldestScrubAgeDays !== null ? `${s.oldestScrubAgeDays} days ago` : null],
    ['unscrubbed', s.unscrubbedPercent !== null ? `${s.unscrubbedPercent}%` : null],
    ['running', s.running ? `${s.running.type} ${jobLine(s.running)} (job ${s.running.id})` : null],
    ['next sync', s.next.sync ? relative(s.next.sync) : s.configured ? 'off' : null],
    ['next scrub', s.next.scrub ? relative(s.next.scrub) : s.configured ? 'off' : null],
  ]);
}

/** "no errors", "1 error", "3 errors". */
export const errorCount = (n: number): string =>
  n === 0 ? 'no errors' : n === 1 ? '1 error' : `${n} errors`;

const wholeIn = (name: string, value: string | undefined, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${name} takes a whole number from ${min} to ${max}, not "${value}"`);
  return n;
};

/** `appliance array parity|sync|scrub` (issue 27). */
export const register: Register = (_root, app) => {
  const array = app.group('array', 'The array: parity, data and cache disks');
  array
    .command('parity')
    .description('parity status: in sync or not, last sync and scrub, pending changes, next runs')
    .action(
      app.action(async (ctx) => {
        const s = await ctx.client.get('/disks/array/parity');
        ctx.out(s, () => statusText(s));
      }),
    );
  array
    .command('sync')
    .description('sync parity now (the deletion guard runs first; --force skips it)')
    .option('--force', 'sync even when more files were removed or updated than the guard allows (audited)')
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      jobHelp(
        'the phase (check, diff, sync, status), percent, bytes and ETA',
        'parity.sync /mnt/user: sync 42% · 1.2 GiB of 2.8 GiB · ETA 3m 10s, 1m 05s',
      ),
    )
    .action(
      app.action<{ force?: boolean; wait: boolean }>(async (ctx, o) => {
        const body = o.force ? { force: true } : {};
        if (!o.wait) {
          const job = await ctx.client.post('/disks/array/parity/sync', { body });
          return ctx.out(
            job,
            () => `Started the parity sync: job ${job.id} (appliance jobs show ${job.id} --follow).\n`,
          );
        }
        const job = await followJob(ctx, {
          what: 'the parity sync',
          start: () => ctx.client.post('/disks/array/parity/sync', { body }),
        });
        ctx.out(job, () =>
          job.state === 'succeeded'
            ? `Parity is in sync (${iec((job.result as { bytes?: number }).bytes ?? 0)} processed).\n`
            : job.state === 'blocked'
              ? blockedText(job.result as BlockedResult | null)
              : jobText(job),
        );
        jobExit(job);
      }),
    );
  array
    .command('scrub')
    .description('scrub part of the array: read it back and check it against parity and the hashes')
    .option('--percent <p>', 'how much of the array (1-100; default from the settings, 8)')
    .option('--older-than <days>', 'only data not scrubbed for this many days (0-3650; default 10)')
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      jobHelp('percent, bytes and ETA', 'parity.scrub /mnt/user: scrub 12% · 300 MiB · ETA 40s, 6s'),
    )
    .action(
      app.action<{ percent?: string; olderThan?: string; wait: boolean }>(async (ctx, o) => {
        const percent = wholeIn('--percent', o.percent, 1, 100);
        const olderThanDays = wholeIn('--older-than', o.olderThan, 0, 3650);
        const body = {
          ...(percent !== undefined ? { percent } : {}),
          ...(olderThanDays !== undefined ? { olderThanDays } : {}),
        };
        if (!o.wait) {
          const job = await ctx.client.post('/disks/array/parity/scrub', { body });
          return ctx.out(
            job,
            () => `Started the scrub: job ${job.id} (appliance jobs show ${job.id} --follow).\n`,
          );
        }
        const job = await followJob(ctx, {
          what: 'the scrub',
          start: () => ctx.client.post('/disks/array/parity/scrub', { body }),
        });
        const r = (job.result ?? {}) as {
          dataErrors?: number;
          ioErrors?: number;
          fileErrors?: number;
          files?: Array<{ disk: string; path: string }>;
        };
        const errors = (r.dataErrors ?? 0) + (r.ioErrors ?? 0) + (r.fileErrors ?? 0);
        const found = errorCount(errors);
        ctx.out(job, () =>
          job.state !== 'succeeded'
            ? jobText(job)
            : errors === 0
              ? 'Scrub finished: no errors.\n'
              : `Scrub found ${found} in:\n${(r.files ?? []).map((f) => `  ${f.disk}/${f.path}\n`).join('')}Repair them from parity (snapraid -e fix) and check the disk's SMART data.\n`,
        );
        jobExit(job);
        if (errors > 0) throw new Refusal('scrub_errors_found', `The scrub found ${found} (see above).`);
      }),
    );
};

/** What a blocked sync's job holds: the diff's counts and the first (up to 100) removed paths. */
export interface BlockedResult {
  changes?: { removed?: number };
  removedPaths?: string[];
}

/**
 * A blocked sync: the files it would have dropped from parity (the reason follows on stderr). The
 * count is the diff's own (`changes.removed`): the job keeps only the first 100 paths.
 */
export function blockedText(result: BlockedResult | null): string {
  const shown = (result?.removedPaths ?? []).slice(0, 20);
  if (shown.length === 0) return 'Parity was kept as it was.\n';
  const total = Math.max(result?.changes?.removed ?? 0, result?.removedPaths?.length ?? 0);
  const more = total - shown.length;
  return [
    `Removed since the last sync${more > 0 ? ` (first ${shown.length} of ${total})` : ''}:\n`,
    ...shown.map((p) => `  ${p}\n`),
    more > 0 ? `  … and ${more} more (GET /api/v1/disks/array/parity/diff lists them all)\n` : '',
    'Parity was kept as it was; if these deletions are intended: appliance array sync --force\n',
  ].join('');
}
