/**
 * The operation of 05 end to end, minus HTTP and the database: the ordered checks (steps 8–13),
 * the delete, and the report. The server passes the database reads, the busy guard and the audit.
 */
import { badRequest, type CommandRunner, type HostPaths } from '@appliance/common';
import { planBranches } from '../core/branches.ts';
import { checkBranchDisks, checkDataDeleteConfirmation, checkDataDeleteTarget } from '../core/checks.ts';
import { branchStatus, buildReport } from '../core/report.ts';
import type { BranchReport, DataDeleteArray, DataDeleteShare, DeleteOutcome } from '../core/model.ts';
import { DATA_DELETE_SHARE_NAME } from '../core/model.ts';
import { preflightBranches } from './preflight.ts';
import { type DeleteProgress, defaultWorkerCount, deleteBranchTrees } from './tree-deleter.ts';
import { warmWorkers } from './worker-pool.ts';

export interface ShareDataDeleteRequest {
  name: string;
  confirmation: string | null | undefined;
  dryRun?: boolean;
}

export interface ShareDataDeleteDeps {
  paths: HostPaths;
  runner: CommandRunner;
  /** A root prefix without lab mode: mountpoint directories count as mounted (05 §4). */
  plainDirectories: boolean;
  /** The share row with exactly this name, or null. */
  loadShare(name: string): DataDeleteShare | null | Promise<DataDeleteShare | null>;
  /** `array_settings` and `array_disks`, or null without an array. */
  loadArray(): DataDeleteArray | null | Promise<DataDeleteArray | null>;
  /** Step 12: runs `fn` while this share is marked busy, or throws 409 share_busy when it already is. */
  whileNotBusy<T>(name: string, fn: () => Promise<T>): Promise<T>;
  onProgress?: (progress: DeleteProgress) => void;
  /** Worker threads (default: see defaultWorkerCount). */
  workers?: number;
}

/**
 * Runs the checks in the contract's order and then the delete (or the dry-run walk). Refusals throw
 * AppError before anything is deleted. Failures while deleting do not throw: the outcome carries them
 * (see incompleteError and auditOutcome).
 */
export async function runShareDataDelete(
  request: ShareDataDeleteRequest,
  deps: ShareDataDeleteDeps,
): Promise<DeleteOutcome> {
  const { name } = request;
  const dryRun = request.dryRun ?? false;
  if (!DATA_DELETE_SHARE_NAME.test(name)) {
    throw badRequest([
      { path: 'name', message: 'Use 1–64 letters, digits, "_" or "-", starting with a letter or digit.' },
    ]);
  }
  checkDataDeleteConfirmation(name, request.confirmation);
  checkDataDeleteTarget(name, await deps.loadShare(name), await deps.loadArray());
  return deps.whileNotBusy(name, async () => {
    // read again under the busy mark: the share, the array or the migration flag may have changed
    const { share, array } = checkDataDeleteTarget(name, await deps.loadShare(name), await deps.loadArray());
    const plan = planBranches(share, array.slots);
    // the delete threads boot while the pre-flight runs its commands
    warmWorkers(deps.workers ?? defaultWorkerCount(plan.branches.length));
    const pre = await preflightBranches(plan, deps);
    checkBranchDisks(pre.observations);
    const run = await deleteBranchTrees({
      share: name,
      dryRun,
      paths: deps.paths,
      branches: pre.present,
      ...(deps.workers !== undefined ? { workers: deps.workers } : {}),
      ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
    });
    const branches: BranchReport[] = plan.branches.map((b) => {
      const index = pre.present.findIndex((p) => p.path === b.path);
      const done = index >= 0 ? run.branches[index] : undefined;
      return {
        disk: b.disk,
        path: b.path,
        present: done !== undefined,
        filesDeleted: done?.filesDeleted ?? 0,
        dirsDeleted: done?.dirsDeleted ?? 0,
        bytesFreed: done?.bytesFreed ?? 0,
        status: branchStatus(done !== undefined, done?.failureCount ?? 0, done?.stop ?? null),
        failureCount: done?.failureCount ?? 0,
      };
    });
    return {
      report: buildReport(name, dryRun, branches, pre.untouched),
      failures: run.failures.listed,
      failureCount: run.failures.count,
    };
  });
}
