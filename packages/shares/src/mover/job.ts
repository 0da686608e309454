/**
 * The mover job (issue 37) on the shared job runner: `mover.run` in the array group (never beside
 * a parity sync or a disk job), its implementation over the ports (`check` → `move`, cancellable
 * between files; one `mover_skipping_files` per run with skips; a restart settles the journalled
 * batch), and its daily schedule, which runs before the parity sync when both are due in one tick.
 */
import { conflict, nextDailySlot } from '@appliance/common';
import { defineJob, type JobImplementation, type Schedule } from '@appliance/jobs';
import { type MoverResult, skipEvent } from './core/report.ts';
import { recoverMover, runMover } from './node/mover.ts';
import type { MoverJobDeps, MoverScheduleDeps } from './ports.ts';

/** What the job shows as its target. */
export const MOVER_TARGET = '/mnt/cache';

export interface MoverRunParams {
  verify: 'size-mtime' | 'sha256';
}

/** `mover.run`: files of cache-then-move shares from the cache to the data disks (array group). */
export const moverJob = defineJob<MoverRunParams, MoverResult>({
  type: 'mover.run',
  title: 'mover',
  groups: ['array'],
});

/** The refusal of a run (or a request for one) on an array without a cache disk. */
export const moverNoCache = () =>
  conflict(
    'no_cache',
    'The array has no cache disk, so there is nothing to move: the mover moves the files of cache-then-move shares from the cache to the data disks.',
  );

/**
 * What a run works on. Refuses without a cache, and while a data disk or the cache is not mounted:
 * a file could exist on the missing disk, and the mover must never put a second copy beside it.
 */
export async function moverSetup(deps: MoverJobDeps) {
  const disks = deps.disks();
  if (!disks) throw moverNoCache();
  const all = [disks.cache, ...disks.data];
  const there = await Promise.all(all.map((d) => deps.present(d)));
  const missing = all.filter((_, i) => !there[i]).map((d) => d.mountpoint);
  if (missing.length > 0)
    throw conflict(
      'array_degraded',
      `The mover moves nothing while ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not mounted (a file could be on a missing disk); mount the disks again, then run the mover.`,
      { missing },
    );
  return {
    shares: deps.shares(),
    cacheRoot: disks.cache.path,
    dataDisks: disks.data.map((d) => d.path),
    minFreeBytes: deps.minFreeBytes(),
    journalDir: deps.journalDir(),
    procDir: deps.procDir,
    runner: deps.runner,
    ...deps.tuning?.(),
  };
}

export function moverImplementation(deps: MoverJobDeps): JobImplementation<MoverRunParams, MoverResult> {
  return {
    async run(job, params) {
      job.phase('check');
      const setup = await moverSetup(deps);
      job.phase('move', { cancellable: true });
      return runMover({
        ...setup,
        verify: params.verify,
        signal: job.signal,
        onSpawn: (pid) => job.pid(pid),
        onOutput: (line) => job.output(line),
        onProgress: (p) =>
          job.progress({
            percent: p.bytesTotal > 0 ? Math.floor((p.bytesDone / p.bytesTotal) * 100) : null,
            bytesDone: p.bytesDone,
            bytesTotal: p.bytesTotal,
            filesDone: p.filesDone,
            filesTotal: p.filesTotal,
            share: p.share,
          }),
      });
    },
    async after(view) {
      const r = view.result;
      if (!r || r.skippedCount === 0) return;
      try {
        await deps.raise(skipEvent(r));
      } catch (err) {
        deps.log.error('mover event not raised', { error: String(err) });
      }
    },
    async recover() {
      const r = await recoverMover(deps.journalDir());
      return {
        message:
          r === null
            ? 'The service stopped while the mover ran, between two files: nothing was half moved. The next run (daily, or POST /api/v1/mover/run) moves the rest.'
            : `The service stopped while the mover ran; the batch it was moving was settled (${r.moved} file(s) kept on the data disk, ${r.keptOnCache} back on the cache, none on both). The next run (daily, or POST /api/v1/mover/run) moves the rest.`,
        ...(r ? { details: { settled: r } } : {}),
      };
    },
  };
}

/**
 * The daily run at the settings' time in the appliance's time zone, counted from the array's
 * creation; off when disabled, without an array or without a cache. Order -10: before the parity
 * sync when both are due in one tick (the sync then finds the array busy and runs after it).
 */
export function moverSchedule(deps: MoverScheduleDeps): Schedule {
  return {
    name: 'mover',
    order: -10,
    nextDue: (lastRunAt) => {
      const settings = deps.settings();
      const since = deps.arraySince();
      if (!settings.enabled || !since || !deps.hasCache()) return null;
      return nextDailySlot(settings.time, deps.timeZone(), lastRunAt ?? since);
    },
    run: async () =>
      (
        await deps.jobs.start(
          moverJob,
          { verify: deps.settings().verify },
          { target: MOVER_TARGET, actor: null, trigger: 'schedule' },
        )
      ).view.id,
  };
}
