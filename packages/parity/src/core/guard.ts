import type { DiffSummary } from './diff.ts';

/** The deletion guard's thresholds (snapraid-aio-script's DEL_THRESHOLD / UP_THRESHOLD). */
export interface GuardThresholds {
  /** More removed files than this blocks a sync. Default 50. */
  deleteThreshold: number;
  /** More updated files than this blocks a sync; null = off (the default). */
  updateThreshold: number | null;
  /** After this many days of blocked syncs, sync anyway; null = never (the default). */
  autoSyncAfterBlockedDays: number | null;
}

export type GuardDecision =
  | { proceed: true; reason: 'no_changes' | 'within_thresholds' | 'forced' | 'auto_after_blocked_days' }
  | {
      proceed: false;
      reason: 'threshold';
      /** Which threshold each count crossed, e.g. `{removed: 60, deleteThreshold: 50}`. */
      crossed: Array<{ count: 'removed' | 'updated'; value: number; threshold: number }>;
    };

/**
 * Before every sync, unless forced: more removed files than the delete threshold, or more updated
 * files than the update threshold (when set), blocks the sync and parity stays as it was. A sync
 * blocked for `autoSyncAfterBlockedDays` (counted from the first block of the current streak) runs
 * anyway: the admin chose to accept the changes after that long.
 */
export function decideSync(input: {
  diff: DiffSummary;
  thresholds: GuardThresholds;
  force: boolean;
  /** When the current streak of blocked syncs began (null: the last sync was not blocked). */
  blockedSince: Date | null;
  now: Date;
}): GuardDecision {
  const { diff, thresholds } = input;
  if (input.force) return { proceed: true, reason: 'forced' };
  if (!diff.changes) return { proceed: true, reason: 'no_changes' };
  const crossed: Extract<GuardDecision, { proceed: false }>['crossed'] = [];
  if (diff.removed > thresholds.deleteThreshold)
    crossed.push({ count: 'removed', value: diff.removed, threshold: thresholds.deleteThreshold });
  if (thresholds.updateThreshold !== null && diff.updated > thresholds.updateThreshold)
    crossed.push({ count: 'updated', value: diff.updated, threshold: thresholds.updateThreshold });
  if (crossed.length === 0) return { proceed: true, reason: 'within_thresholds' };
  const days = thresholds.autoSyncAfterBlockedDays;
  if (days !== null && input.blockedSince !== null) {
    const due = input.blockedSince.getTime() + days * 86_400_000;
    if (input.now.getTime() >= due) return { proceed: true, reason: 'auto_after_blocked_days' };
  }
  return { proceed: false, reason: 'threshold', crossed };
}

/** Why a sync that ran went ahead: the guard's reason, or `unfinished_sync` (below). */
export type SyncReason = Extract<GuardDecision, { proceed: true }>['reason'] | 'unfinished_sync';

/**
 * The reason a finished sync reports. The diff found no file changes (`no_changes`) but the sync
 * still wrote parity: it completed what an earlier sync left unfinished (cancelled, interrupted or
 * failed after SnapRAID had saved its content file) — `unfinished_sync`, never `no_changes` beside
 * gigabytes processed.
 */
export function syncReason(
  guard: Extract<GuardDecision, { proceed: true }>['reason'],
  bytesProcessed: number,
): SyncReason {
  return guard === 'no_changes' && bytesProcessed > 0 ? 'unfinished_sync' : guard;
}
