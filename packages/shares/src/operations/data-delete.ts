/**
 * Share data delete (05) as one operation: the typed confirmation first, the array-job hold, the
 * checks and the delete (`runShareDataDelete`), progress, the audit row, and `incomplete` as a
 * refusal carrying the report. The busy guard (share-delete-guard.ts) is the "is a delete running
 * for share X" of 05 §4 step 12 that a definition delete consults too.
 */
import type { CommandRunner, HostPaths } from '@appliance/common';
import { checkDataDeleteConfirmation } from '../data-delete/core/checks.ts';
import type { DataDeleteArray, DataDeleteShare, DeleteReport } from '../data-delete/core/model.ts';
import { auditOutcome, incompleteError } from '../data-delete/core/report.ts';
import { runShareDataDelete } from '../data-delete/node/share-data-delete.ts';
import type { ShareAuditEntry } from './ports.ts';
import type { ShareDeleteGuard } from './share-delete-guard.ts';

/** The running totals (a plain record, as progress events carry them). */
type Totals = { [K in keyof DeleteReport['totals']]: number };

export interface DataDeletePorts {
  paths: HostPaths;
  runner: CommandRunner;
  /** A root prefix without lab mode: mountpoint directories count as mounted (05 §4). */
  plainDirectories: boolean;
  loadShare(name: string): DataDeleteShare | null | Promise<DataDeleteShare | null>;
  loadArray(): DataDeleteArray | null | Promise<DataDeleteArray | null>;
  guard: ShareDeleteGuard;
  /**
   * Holds the array against array jobs (a parity sync, a scrub, a disk job: refused `job_running`)
   * while deletes share the hold; returns the release.
   */
  holdArray(name: string): () => void;
  /** The progress of one run. */
  progress(name: string): { update(totals: Totals): void; finish(totals: Totals): void };
  /** Records the audit row of a real (not dry) run. */
  audit(entry: ShareAuditEntry): Promise<void>;
  /** Worker threads (default: one per branch, bounded). */
  workers?: number;
}

export interface DataDeleteRequest {
  name: string;
  confirmation: string | null | undefined;
  dryRun?: boolean;
}

/** Deletes (or, dry, walks) a share's files on every disk; resolves with the report. */
export async function deleteShareData(
  ports: DataDeletePorts,
  request: DataDeleteRequest,
): Promise<DeleteReport> {
  const { name } = request;
  const dryRun = request.dryRun ?? false;
  // step 8 before any lookup: a wrong confirmation on an unknown share is refused as such
  checkDataDeleteConfirmation(name, request.confirmation);
  const release = dryRun ? () => undefined : ports.holdArray(name);
  try {
    const progress = ports.progress(name);
    const outcome = await runShareDataDelete(
      { name, confirmation: request.confirmation, dryRun },
      {
        paths: ports.paths,
        runner: ports.runner,
        plainDirectories: ports.plainDirectories,
        loadShare: (n) => ports.loadShare(n),
        loadArray: () => ports.loadArray(),
        whileNotBusy: (n, fn) => ports.guard.whileDeleting(n, fn),
        onProgress: (p) => progress.update({ ...p.totals }),
        ...(ports.workers !== undefined ? { workers: ports.workers } : {}),
      },
    );
    progress.finish({ ...outcome.report.totals });
    if (!dryRun) {
      await ports.audit({
        operation: 'share_data.delete',
        target: name,
        outcome: auditOutcome(outcome),
        // 05 §5: details = totals (a partial run also records how many entries failed)
        details:
          outcome.failureCount === 0
            ? { ...outcome.report.totals }
            : { ...outcome.report.totals, failureCount: outcome.failureCount },
      });
    }
    const incomplete = incompleteError(outcome);
    if (incomplete) throw incomplete;
    return outcome.report;
  } finally {
    release();
  }
}
