/** What a mover run reports: its result, the skip counts, the `mover_skipping_files` text. */
import type { SkipReason, Skipped } from './model.ts';

/** Skipped files listed in a result (the counts cover all of them). */
export const SKIPPED_LISTED = 1000;

export interface MoverResult {
  movedFiles: number;
  movedBytes: number;
  skippedCount: number;
  skippedByReason: Record<SkipReason, number>;
  /** The first `SKIPPED_LISTED` skipped files, with their reasons. */
  skipped: Skipped[];
  /** The cache-then-move shares this run looked at. */
  shares: string[];
  /** Empty directories removed from the cache. */
  removedDirs: number;
  verify: 'size-mtime' | 'sha256';
}

const REASON_TEXT: Record<SkipReason, string> = {
  open_for_writing: 'open for writing',
  exists_on_array: 'already on a data disk',
  no_space: 'no data disk has room',
  changed_during_move: 'changed while being moved',
  copy_failed: 'could not be copied',
};

export function countByReason(skipped: readonly Skipped[]): Record<SkipReason, number> {
  const out: Record<SkipReason, number> = {
    open_for_writing: 0,
    exists_on_array: 0,
    no_space: 0,
    changed_during_move: 0,
    copy_failed: 0,
  };
  for (const s of skipped) out[s.reason] += 1;
  return out;
}

/** The one `mover_skipping_files` of a run: counts by reason and the first paths. */
export function skipEvent(
  run: Pick<MoverResult, 'skipped' | 'skippedCount' | 'skippedByReason'>,
  firstPaths = 5,
): { eventType: 'mover_skipping_files'; title: string; message: string } {
  const counts = run.skippedByReason;
  const parts = (Object.keys(counts) as SkipReason[])
    .filter((r) => counts[r] > 0)
    .map((r) => `${counts[r]} ${REASON_TEXT[r]}`);
  const first = run.skipped
    .slice(0, firstPaths)
    .map((s) => `/mnt/user/${s.share}/${s.path} (${REASON_TEXT[s.reason]})`);
  const n = run.skippedCount;
  const more = n > first.length ? `, and ${n - first.length} more` : '';
  return {
    eventType: 'mover_skipping_files',
    title: `The mover left ${n} file${n === 1 ? '' : 's'} on the cache`,
    message:
      `The mover skipped ${n} file${n === 1 ? '' : 's'} (${parts.join(', ')}); they stay on the cache and the next run tries again. ` +
      `First: ${first.join('; ')}${more}. The full list is in the mover job's result (GET /api/v1/mover).`,
  };
}

/** Facts of one copy, for the verification. */
export interface CopyFacts {
  kind: 'file' | 'symlink' | 'dir' | 'other';
  size: bigint;
  mtimeNs: bigint;
  linkTarget?: string;
  sha256?: string;
}

/** Whether the array copy is the cache copy (size and mtime; the hash too when both carry one). */
export function sameCopy(cache: CopyFacts, array: CopyFacts): boolean {
  if (cache.kind !== array.kind) return false;
  if (cache.kind === 'dir') return true;
  if (cache.kind === 'symlink') return cache.linkTarget === array.linkTarget;
  if (cache.size !== array.size || cache.mtimeNs !== array.mtimeNs) return false;
  if (cache.sha256 !== undefined || array.sha256 !== undefined) return cache.sha256 === array.sha256;
  return true;
}
