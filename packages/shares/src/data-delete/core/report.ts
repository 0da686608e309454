import { AppError } from '@appliance/common';
import type {
  BranchReport,
  BranchStatus,
  DeleteCounts,
  DeleteFailure,
  DeleteOutcome,
  DeleteReport,
  DiskDirectory,
} from './model.ts';

/** At most this many failures are listed in a report (05 §5); `failureCount` counts them all. */
export const MAX_LISTED_FAILURES = 100;

export const zeroCounts = (): DeleteCounts => ({ filesDeleted: 0, dirsDeleted: 0, bytesFreed: 0 });

export function addCounts(into: DeleteCounts, more: DeleteCounts): DeleteCounts {
  into.filesDeleted += more.filesDeleted;
  into.dirsDeleted += more.dirsDeleted;
  into.bytesFreed += more.bytesFreed;
  return into;
}

export function sumCounts(items: readonly DeleteCounts[]): DeleteCounts {
  const total = zeroCounts();
  for (const c of items) addCounts(total, c);
  return total;
}

/** A branch's status from what happened on it. */
export function branchStatus(
  present: boolean,
  failureCount: number,
  stop: 'read_only' | 'disk_error' | null,
): BranchStatus {
  if (!present) return 'absent';
  if (stop) return stop;
  return failureCount > 0 ? 'incomplete' : 'ok';
}

/** Keeps the first failures and counts all of them. */
export class FailureList {
  readonly listed: DeleteFailure[] = [];
  count = 0;

  add(failure: DeleteFailure): void {
    this.count += 1;
    if (this.listed.length < MAX_LISTED_FAILURES) this.listed.push(failure);
  }

  /** Adds failures another counter already capped: `listed` may be shorter than `count`. */
  addBatch(listed: readonly DeleteFailure[], count: number): void {
    for (const f of listed) if (this.listed.length < MAX_LISTED_FAILURES) this.listed.push(f);
    this.count += count;
  }
}

/** The report of 05 §3: branches in plan order, totals summed over them. */
export function buildReport(
  share: string,
  dryRun: boolean,
  branches: BranchReport[],
  untouched: DiskDirectory[],
): DeleteReport {
  return { share, dryRun, branches, untouched, totals: sumCounts(branches) };
}

/** `500 share_data_delete_incomplete` (05 §5) when some entries could not be removed or read, else `null`. */
export function incompleteError(outcome: DeleteOutcome): AppError | null {
  if (outcome.failureCount === 0) return null;
  const { report, failures, failureCount } = outcome;
  const what = report.dryRun ? 'could not be read' : 'could not be deleted';
  return new AppError(
    500,
    'share_data_delete_incomplete',
    `${failureCount} ${failureCount === 1 ? 'entry' : 'entries'} of share "${report.share}" ${what} ` +
      `(see details.failures): fix the cause (read-only or failing disk, immutable file, mount inside the share), then run the delete again to finish it.`,
    { report, failures, failureCount },
  );
}

/** The audit row outcome of a real (not dry) run: `ok` or `partial` (05 §5). */
export const auditOutcome = (outcome: DeleteOutcome): 'ok' | 'partial' =>
  outcome.failureCount === 0 ? 'ok' : 'partial';
