/**
 * The parity sync: `syncParity` (one sync of the array, shared with the disk jobs) and the
 * `parity.sync` job's implementation (check the slots → sync → status; events after).
 */
import { performance } from 'node:perf_hooks';
import { isoMillis } from '@appliance/common';
import { type JobHandle, type JobImplementation, JobBlocked } from '@appliance/jobs';
import { diffCounts, diffOf } from '../core/diff.ts';
import { decideSync, syncReason } from '../core/guard.ts';
import * as parityEvents from '../core/messages.ts';
import type { MetadataOutcome, ParityJobDeps } from '../ports.ts';
import type { BlockedSyncResult, SyncOutcome, SyncParams, SyncResult } from './kinds.ts';
import { failed, handlers, raise, recordStatus, requireWholeArray, snapraidOf } from './steps.ts';

/** How many removed paths a blocked sync's result names. */
const REMOVED_SHOWN = 100;

export interface SyncOptions extends SyncParams {
  /** Reports the whole sync under this one cancellable phase (a disk job's `presync` / `sync`). */
  phase?: string;
  /** Stops after the diff when it found nothing to sync (a disk job's sync before it starts). */
  onlyIfChanged?: boolean;
  /**
   * Called once snapraid has completed the sync (parity written, state saved). With it, a cancel
   * after that point only skips the metadata (named in the outcome) instead of resolving null.
   */
  onSynced?: () => void;
}

/** Every data disk's metadata as not saved, for `reason`. */
function notSaved(deps: ParityJobDeps, reason: string): MetadataOutcome {
  return {
    saved: [],
    skipped: deps.slots
      .list()
      .filter((s) => s.role === 'data')
      .map((s) => ({ disk: `d${s.roleIndex}`, mountpoint: s.mountpoint, reason })),
  };
}

/**
 * One sync of the array, shared by the parity sync job and the disk jobs: diff → the deletion
 * guard (a block throws `JobBlocked`) → touch → sync → the recorded diff → the metadata of every
 * data disk. `phase` reports all of it under one cancellable phase name instead of
 * `diff`/`touch`/`sync`/`metadata`. Resolves null when cancelled before snapraid completed the sync
 * (a cancel snapraid did not act on because it had finished is no cancel); throws `sync_failed`
 * when snapraid fails.
 */
export async function syncParity(
  deps: ParityJobDeps,
  job: JobHandle,
  params: SyncOptions,
): Promise<SyncOutcome | null> {
  const enter = (name: string) => {
    if (params.phase === undefined) job.phase(name, { cancellable: true });
  };
  if (params.phase !== undefined) job.phase(params.phase, { cancellable: true });
  const snapraid = snapraidOf(deps);
  const settings = deps.store.settings();

  enter('diff');
  const { run: diffRun, diff } = await snapraid.diff(handlers(job));
  if (diffRun.cancelled) return null;
  const diffFailure = failed(diffRun, 'sync_failed', 'diff');
  if (diffFailure) throw diffFailure;
  const now = deps.clock.now();
  const state = deps.store.state();
  await deps.store.update({ lastDiff: { ...diff, at: isoMillis(now), jobId: job.id } });
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
    await deps.store.update({ blockedSince });
    await raise(deps, parityEvents.syncBlocked({ diff, decision }));
    const removed = diff.paths.removed.slice(0, REMOVED_SHOWN);
    throw new JobBlocked<BlockedSyncResult>(
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
  await deps.store.update({
    blockedSince: null,
    lastDiff: {
      ...diffOf({ equal: diff.equal + diff.added + diff.updated }),
      at: isoMillis(deps.clock.now()),
      jobId: job.id,
    },
  });
  params.onSynced?.();
  enter('metadata');
  const metadata = await deps.metadata.save(job);
  if (metadata === null && !params.onSynced) return null;
  return {
    changes: counts,
    reason: syncReason(decision.reason, bytes),
    forced: params.force,
    bytes,
    metadata: metadata ?? notSaved(deps, 'the job was cancelled before it was saved'),
  };
}

/** The `parity.sync` job: the whole array present, then `syncParity`, then `snapraid status`. */
export function syncImplementation(
  deps: ParityJobDeps,
): JobImplementation<SyncParams, SyncResult | BlockedSyncResult> {
  const elapsed = deps.monotonicMs ?? (() => performance.now());
  return {
    async run(job, params) {
      const started = elapsed();
      await requireWholeArray(deps, job, 'parity sync');
      // once snapraid completed the sync the job succeeds, even when a cancel arrives meanwhile
      const outcome = await syncParity(deps, job, { ...params, onSynced: () => job.completed() });
      if (outcome === null) return null;
      await recordStatus(deps, job);
      return { ...outcome, seconds: Math.round((elapsed() - started) / 100) / 10 };
    },
    async after(view) {
      if (view.state === 'succeeded' && view.result && 'seconds' in view.result) {
        const r = view.result;
        await raise(
          deps,
          parityEvents.syncSucceeded({ diff: diffOf(r.changes), bytes: r.bytes, seconds: r.seconds }),
        );
      } else if (view.state === 'failed' && view.error?.code !== 'array_degraded') {
        const reason =
          typeof view.error?.details?.['snapraid'] === 'string'
            ? `snapraid said "${view.error.details['snapraid']}"`
            : (view.error?.message ?? 'unknown error');
        await raise(deps, parityEvents.syncFailed({ reason, scheduled: view.trigger === 'schedule' }));
      }
    },
  };
}
