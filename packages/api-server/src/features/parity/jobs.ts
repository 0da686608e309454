/**
 * The parity jobs (issue 27): `parity.sync` (check the slots → diff → the deletion guard → touch →
 * sync → status) and `parity.scrub` (check the slots → scrub → status). Decisions come from
 * @appliance/parity; snapraid runs through its adapter; events go through the notification path.
 */
import fs from 'node:fs/promises';
import { type ArraySlot, isMountedAt, snapraidDiskName } from '@appliance/array-planner';
import { AppError, isoMillis } from '@appliance/common';
import {
  createSnapraid,
  type DamagedFile,
  type DiffCounts,
  decideSync,
  diffCounts,
  diffOf,
  parityEvents,
  type RaisedEvent,
  type RunHandlers,
  type SnapraidRun,
  syncReason,
} from '@appliance/parity';
import type { AppContext } from '../../context.ts';
import { defineJob, type JobHandle, type JobImplementation, JobBlocked } from '@appliance/jobs';
import { type MetadataOutcome, saveArrayMetadata } from '../disks/metadata.ts';
import { listSlots } from '../disks/store.ts';
import { readParitySettings, readParityState, updateParityState } from './store.ts';

/** Every array job shares this exclusion group (sync, scrub, disk jobs, array setup, share data delete). */
export const ARRAY_GROUP = 'array';

export interface SyncParams {
  force: boolean;
}

export interface ScrubParams {
  percent: number;
  olderThanDays: number;
}

/** What a finished sync records: its outcome and how long it took. */
export type SyncResult = SyncOutcome & { seconds: number };

/** What a blocked sync records (the deletion guard stopped it). */
export interface BlockedSyncResult {
  changes: DiffCounts;
  crossed: unknown[];
  removedPaths: string[];
  blockedSince: string;
}

export interface ScrubResult {
  percent: number;
  olderThanDays: number;
  bytes: number;
  dataErrors: number;
  ioErrors: number;
  fileErrors: number;
  files: DamagedFile[];
}

/** `parity.sync`: diff → the deletion guard → touch → sync → status. */
export const syncJob = defineJob<SyncParams, SyncResult | BlockedSyncResult>({
  type: 'parity.sync',
  title: 'parity sync',
  groups: [ARRAY_GROUP],
});

/** `parity.scrub`: check the slots → scrub → status. */
export const scrubJob = defineJob<ScrubParams, ScrubResult>({
  type: 'parity.scrub',
  title: 'parity scrub',
  groups: [ARRAY_GROUP],
});

const raise = async (ctx: AppContext, event: RaisedEvent) => {
  try {
    await ctx.hooks.raise?.(event);
  } catch (err) {
    ctx.logger.error('parity event not raised', { eventType: event.eventType, error: String(err) });
  }
};

/**
 * The parity and data slots whose disk is not there: not mounted (on a sandbox outside lab mode the
 * slots are plain directories, which count when they exist).
 */
export async function missingSlots(ctx: AppContext): Promise<ArraySlot[]> {
  const plain = ctx.paths.root !== '' && !ctx.config.lab.enabled;
  const slots = listSlots(ctx.db).filter((s) => s.role !== 'cache');
  const present = await Promise.all(
    slots.map((s) =>
      plain
        ? fs.stat(ctx.paths.real(s.mountpoint)).then(
            (st) => st.isDirectory(),
            () => false,
          )
        : isMountedAt(ctx.paths, s.mountpoint),
    ),
  );
  return slots.filter((_, i) => !present[i]);
}

/** Refuses a job on an array with a missing disk, raising `array_degraded` (once per start). */
async function requireWholeArray(ctx: AppContext, job: JobHandle, title: string): Promise<void> {
  job.phase('check');
  const missing = await missingSlots(ctx);
  if (missing.length === 0) return;
  const list = missing.map((m) => ({ role: m.role, mountpoint: m.mountpoint, device: m.device }));
  // a condition, raised once: the disks watcher may have raised it already, and clears it when the
  // slots are back
  try {
    await ctx.conditions.hold(
      'array:degraded',
      parityEvents.arrayDegraded({ missing: list, job: title }),
      'parity',
    );
  } catch (err) {
    ctx.logger.error('array_degraded not reported', { error: String(err) });
  }
  throw new AppError(
    409,
    'array_degraded',
    `The ${title} did not start: ${list.map((m) => `the ${m.role} disk ${m.mountpoint} (${m.device})`).join(', ')} ${list.length === 1 ? 'is' : 'are'} not mounted. Bring the disk back (or replace it) and run it again.`,
    { missing: list },
  );
}

/** A snapraid run's handlers for a job: output lines, the process id, progress. */
export function handlers(job: JobHandle): RunHandlers {
  return {
    signal: job.signal,
    onOutput: (line) => job.output(line),
    onSpawn: (pid) => job.pid(pid),
    onProgress: (p) => job.progress({ ...p }),
  };
}

/** A snapraid run that failed (not cancelled) ends the job with snapraid's own error line. */
export function failed(run: SnapraidRun, code: string, what: string): AppError | null {
  if (run.cancelled || run.errorLine === null) return null;
  return new AppError(500, code, `snapraid ${what} failed: ${run.errorLine}`, {
    exitCode: run.exitCode,
    snapraid: run.errorLine,
  });
}

/** Every data disk's metadata as not saved, for `reason`. */
function notSaved(ctx: AppContext, reason: string): MetadataOutcome {
  return {
    saved: [],
    skipped: listSlots(ctx.db)
      .filter((s) => s.role === 'data')
      .map((s) => ({ disk: snapraidDiskName('data', s.roleIndex), mountpoint: s.mountpoint, reason })),
  };
}

async function recordStatus(ctx: AppContext, job: JobHandle): Promise<void> {
  job.phase('status', { cancellable: true });
  const snapraid = createSnapraid({ runner: ctx.runner, configFile: ctx.paths.snapraidConf });
  const { run, status } = await snapraid.status(handlers(job));
  if (run.cancelled || run.errorLine !== null) return; // the job's own work is done; status is a bonus
  const at = isoMillis(ctx.clock.now());
  await ctx.writes.run((db) =>
    updateParityState(db, {
      lastStatus: {
        ...status,
        oldestScrubAt: status.oldestScrubAt ? isoMillis(status.oldestScrubAt) : null,
        at,
      },
    }),
  );
}

/** What a sync did (the parity sync job's result, and a disk job's sync). */
export interface SyncOutcome {
  changes: DiffCounts;
  reason: string;
  forced: boolean;
  bytes: number;
  /**
   * The per-disk metadata SnapRAID does not keep (owners, modes, ACLs, xattrs), saved after the
   * sync; null when there was nothing to sync (`onlyIfChanged`).
   */
  metadata: MetadataOutcome | null;
}

/**
 * One sync of the array, shared by the parity sync job and the disk jobs: diff → the deletion
 * guard (a block throws `JobBlocked`) → touch → sync → the recorded diff → the metadata of every
 * data disk. `phase` reports all of it under one cancellable phase name (a disk job's `presync` /
 * `sync`) instead of `diff`/`touch`/`sync`/`metadata`; `onlyIfChanged` stops after the diff when
 * it found nothing to sync (a disk job's sync before it starts). Resolves null when cancelled
 * before snapraid completed the sync (a cancel snapraid did not act on because it had finished is
 * no cancel); throws `AppError` when snapraid fails.
 */
export async function syncParity(
  ctx: AppContext,
  job: JobHandle,
  params: SyncParams & {
    phase?: string;
    onlyIfChanged?: boolean;
    /**
     * Called once snapraid has completed the sync (parity written, state saved). With it, a cancel
     * after that point only skips the metadata (named in the outcome) instead of resolving null.
     */
    onSynced?: () => void;
  },
): Promise<SyncOutcome | null> {
  const enter = (name: string) => {
    if (params.phase === undefined) job.phase(name, { cancellable: true });
  };
  if (params.phase !== undefined) job.phase(params.phase, { cancellable: true });
  const snapraid = createSnapraid({ runner: ctx.runner, configFile: ctx.paths.snapraidConf });
  const settings = readParitySettings(ctx.db);

  enter('diff');
  const { run: diffRun, diff } = await snapraid.diff(handlers(job));
  if (diffRun.cancelled) return null;
  const diffFailure = failed(diffRun, 'sync_failed', 'diff');
  if (diffFailure) throw diffFailure;
  const now = ctx.clock.now();
  const state = readParityState(ctx.db);
  await ctx.writes.run((db) =>
    updateParityState(db, { lastDiff: { ...diff, at: isoMillis(now), jobId: job.id } }),
  );
  // snapraid finishes a diff whatever SIGINT says: a cancel during it stops the job here
  if (job.signal.aborted) return null;

  const decision = decideSync({
    diff,
    thresholds: settings,
    force: params.force,
    blockedSince: state.blockedSince ? new Date(state.blockedSince) : null,
    now,
  });
  const counts = diffCounts(diff);
  if (params.onlyIfChanged && !diff.changes)
    return { changes: counts, reason: 'no_changes', forced: false, bytes: 0, metadata: null };
  if (!decision.proceed) {
    const blockedSince = state.blockedSince ?? isoMillis(now);
    await ctx.writes.run((db) => updateParityState(db, { blockedSince }));
    await raise(ctx, parityEvents.syncBlocked({ diff, decision }));
    const removed = diff.paths.removed.slice(0, 100);
    throw new JobBlocked(
      {
        code: 'sync_blocked_threshold',
        message: `The sync was blocked by the deletion guard: ${decision.crossed
          .map((c) => `${c.value} ${c.count} files (threshold ${c.threshold})`)
          .join(
            ', ',
          )}. Parity was kept as it was. Read the removed paths (GET /api/v1/disks/array/parity/diff), then run a forced sync if the changes are intended.`,
        details: { crossed: decision.crossed },
      },
      { changes: counts, crossed: decision.crossed, removedPaths: removed, blockedSince },
    );
  }

  if (settings.touchBeforeSync && (state.lastStatus?.zeroSubsecondFiles ?? 0) > 0) {
    enter('touch');
    const touched = await snapraid.touch(handlers(job));
    if (touched.run.cancelled || job.signal.aborted) return null;
  }

  enter('sync');
  const { run } = await snapraid.sync(handlers(job));
  if (run.cancelled) return null;
  const syncFailure = failed(run, 'sync_failed', 'sync');
  if (syncFailure) throw syncFailure;
  const bytes = run.progress?.bytesDone ?? 0;
  const synced = isoMillis(ctx.clock.now());
  await ctx.writes.run((db) =>
    updateParityState(db, {
      blockedSince: null,
      lastDiff: {
        ...diffOf({ equal: diff.equal + diff.added + diff.updated }),
        at: synced,
        jobId: job.id,
      },
    }),
  );
  params.onSynced?.();
  enter('metadata');
  const metadata = await saveArrayMetadata(ctx, job);
  if (metadata === null && !params.onSynced) return null;
  return {
    changes: counts,
    reason: syncReason(decision.reason, bytes),
    forced: params.force,
    bytes,
    metadata: metadata ?? notSaved(ctx, 'the job was cancelled before it was saved'),
  };
}

export function syncImplementation(
  ctx: AppContext,
): JobImplementation<SyncParams, SyncResult | BlockedSyncResult> {
  return {
    async run(job, params) {
      const started = Date.now();
      await requireWholeArray(ctx, job, 'parity sync');
      // once snapraid completed the sync the job succeeds, even when a cancel arrives meanwhile
      const outcome = await syncParity(ctx, job, { ...params, onSynced: () => job.completed() });
      if (outcome === null) return null;
      await recordStatus(ctx, job);
      return { ...outcome, seconds: Math.round((Date.now() - started) / 100) / 10 };
    },
    async after(view) {
      if (view.state === 'succeeded' && view.result && 'seconds' in view.result) {
        const r = view.result;
        await raise(
          ctx,
          parityEvents.syncSucceeded({ diff: diffOf(r.changes), bytes: r.bytes, seconds: r.seconds }),
        );
      } else if (view.state === 'failed' && view.error?.code !== 'array_degraded') {
        const reason =
          typeof view.error?.details?.['snapraid'] === 'string'
            ? `snapraid said "${view.error.details['snapraid']}"`
            : (view.error?.message ?? 'unknown error');
        await raise(ctx, parityEvents.syncFailed({ reason, scheduled: view.trigger === 'schedule' }));
      }
    },
  };
}

export function scrubImplementation(ctx: AppContext): JobImplementation<ScrubParams, ScrubResult> {
  return {
    async run(job, params) {
      await requireWholeArray(ctx, job, 'parity scrub');
      const snapraid = createSnapraid({ runner: ctx.runner, configFile: ctx.paths.snapraidConf });
      job.phase('scrub', { cancellable: true });
      const { run, findings } = await snapraid.scrub(params, handlers(job));
      if (run.cancelled) return null;
      const failure = failed(run, 'scrub_failed', 'scrub');
      if (failure) throw failure;
      job.completed(); // the scrub is done: a cancel from here on is too late
      await recordStatus(ctx, job);
      return {
        percent: params.percent,
        olderThanDays: params.olderThanDays,
        bytes: run.progress?.bytesDone ?? 0,
        dataErrors: findings.dataErrors,
        ioErrors: findings.ioErrors,
        fileErrors: findings.fileErrors,
        files: findings.files,
      };
    },
    async after(view) {
      const r = view.result;
      if (view.state !== 'succeeded' || !r) return;
      if (r.dataErrors + r.ioErrors + r.fileErrors > 0) await raise(ctx, parityEvents.scrubErrors(r));
    },
  };
}
