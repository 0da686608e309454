/**
 * A plan's repository during a run: created the first time, and retention applied (on the first
 * run of each local day: `restic forget` of what the plan no longer keeps, `prune` when due).
 */
import fs from 'node:fs/promises';
import { isoMillis, refuse } from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import type { BackupPlan } from '../core/plan.ts';
import { decideRetention, pruneDue, retentionDue } from '../core/retention.ts';
import type { Restic } from '../node/restic.ts';
import type { BackupPorts } from '../ports.ts';

/** restic's repository of the plan on the destination, created the first time. */
export async function ensureRepository(restic: Restic): Promise<{ created: boolean }> {
  if (await restic.exists()) {
    await restic.unlockStale();
    return { created: false };
  }
  const entries = await fs.readdir(restic.repository).catch(() => null);
  if (entries !== null && entries.length > 0)
    throw refuse(
      'repository_unusable',
      `The folder for this plan's repository on the backup disk holds files but no restic repository: move them away, then run the backup again.`,
    );
  const r = await restic.init();
  if (r.errorLine !== null)
    throw refuse('repository_init_failed', `restic could not create the repository: ${r.errorLine}`);
  return { created: true };
}

export interface RetentionResult {
  /** False: retention ran earlier today (it runs on the first run of each local day). A run that
   * made the repository has nothing to forget and reports `retention: null`. */
  ran: boolean;
  removed: number;
  kept: number | null;
  pruned: boolean;
}

export async function applyRetention(
  ports: BackupPorts,
  job: JobHandle,
  plan: BackupPlan,
  restic: Restic,
): Promise<RetentionResult> {
  const timeZone = ports.settings().timeZone;
  const state = await ports.store.readState(plan.name);
  const now = ports.clock.now();
  if (!retentionDue(state?.lastRetentionAt ? new Date(state.lastRetentionAt) : null, now, timeZone))
    return { ran: false, removed: 0, kept: null, pruned: false };
  job.phase('retention');
  const { run, snapshots } = await restic.snapshots();
  if (run.errorLine !== null) throw refuse('retention_failed', `restic snapshots failed: ${run.errorLine}`);
  const decision = decideRetention(snapshots, plan.retention, timeZone);
  if (decision.remove.length > 0) {
    const forgot = await restic.forget(decision.remove, { onOutput: (l) => job.output(l) });
    if (forgot.errorLine !== null)
      throw refuse('retention_failed', `restic forget failed: ${forgot.errorLine}`);
  }
  const removedShort = snapshots.filter((s) => decision.remove.includes(s.id)).map((s) => s.shortId);
  const at = isoMillis(now);
  const forgotten = (state?.forgottenSincePrune ?? 0) + decision.remove.length;
  await ports.store.recordRetention(plan.name, removedShort, {
    lastRetentionAt: at,
    forgottenSincePrune: forgotten,
  });
  const result = { ran: true, removed: decision.remove.length, kept: decision.keep.length, pruned: false };
  if (
    !pruneDue({
      lastPruneAt: state?.lastPruneAt ? new Date(state.lastPruneAt) : null,
      forgottenSincePrune: forgotten,
      now,
    })
  )
    return result;
  job.phase('prune', { cancellable: true });
  const pruned = await restic.prune({
    signal: job.signal,
    onOutput: (l) => job.output(l),
    onSpawn: (p) => job.pid(p),
  });
  if (pruned.cancelled) return result;
  if (pruned.errorLine !== null) throw refuse('retention_failed', `restic prune failed: ${pruned.errorLine}`);
  await ports.store.updateState(plan.name, {
    lastPruneAt: isoMillis(ports.clock.now()),
    forgottenSincePrune: 0,
  });
  return { ...result, pruned: true };
}
