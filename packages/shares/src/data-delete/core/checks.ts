import { AppError, confirmationRequired } from '@appliance/common';
import type { DataDeleteArray, DataDeleteShare } from './model.ts';

/** The refusals of share data delete (05 §6), one constructor per code. */
export const dataDeleteErrors = {
  shareNotFound: (name: string): AppError =>
    new AppError(
      404,
      'share_not_found',
      `There is no share named "${name}" (names are case-sensitive): check the name in the share list.`,
      { name },
    ),
  migrationInProgress: (): AppError =>
    new AppError(
      409,
      'migration_in_progress',
      'An import from another system is pending its point of no return: finish or cancel the migration, then delete the share files.',
    ),
  noArray: (): AppError =>
    new AppError(
      409,
      'no_array',
      'There is no storage array, so no share has files on disks: set up the array first.',
    ),
  shareBusy: (name: string): AppError =>
    new AppError(
      409,
      'share_busy',
      `Share "${name}" is already being deleted (its files or its definition): wait until that finishes, then try again.`,
      { name },
    ),
  diskNotMounted: (disk: string, reason: 'not_mounted' | 'wrong_filesystem', error?: string): AppError =>
    new AppError(
      409,
      'disk_not_mounted',
      error !== undefined
        ? `The array disk ${disk} does not answer (${error}): check the disk and remount it, then try again. Nothing was deleted.`
        : reason === 'not_mounted'
          ? `The array disk ${disk} is not mounted: mount it (or check its cabling), then try again. Nothing was deleted.`
          : `Another filesystem than the array disk's is mounted at ${disk}: mount the right disk there, then try again. Nothing was deleted.`,
      error !== undefined ? { disk, reason, error } : { disk, reason },
    ),
  branchNotDirectory: (disk: string, path: string, reason: BranchRefusal): AppError =>
    new AppError(
      409,
      'share_branch_not_directory',
      `${path} is ${BRANCH_REFUSAL_TEXT[reason]}, not a directory on ${disk}: move it aside, then try again. Nothing was deleted.`,
      { disk, path, reason },
    ),
} as const;

export type BranchRefusal = 'symlink' | 'not_directory' | 'other_filesystem';

const BRANCH_REFUSAL_TEXT: Record<BranchRefusal, string> = {
  symlink: 'a symbolic link',
  not_directory: 'not a directory',
  other_filesystem: 'the mount point of another filesystem',
};

/**
 * Step 8: the typed confirmation must equal the share name byte for byte (no trimming, case-sensitive).
 * Checked before the share lookup, so a wrong confirmation on an unknown share answers 409.
 */
export function checkDataDeleteConfirmation(name: string, confirmation: string | null | undefined): void {
  if (confirmation !== name) throw confirmationRequired(name);
}

/** Steps 9–11 over plain data: the share exists, no migration is pending, an array is configured. */
export function checkDataDeleteTarget(
  name: string,
  share: DataDeleteShare | null,
  array: DataDeleteArray | null,
): { share: DataDeleteShare; array: DataDeleteArray } {
  if (share === null || share.name !== name) throw dataDeleteErrors.shareNotFound(name);
  if (array?.migrationPending) throw dataDeleteErrors.migrationInProgress();
  if (array === null) throw dataDeleteErrors.noArray();
  return { share, array };
}

/** What the pre-flight saw on one branch disk (step 13). */
export interface BranchDiskObservation {
  disk: string;
  path: string;
  /** Whether a filesystem is mounted at the disk's mountpoint. */
  mounted: boolean;
  /** UUID of the mounted filesystem; `null` when the host runs on plain directories (counts as right). */
  mountedUuid: string | null;
  expectedUuid: string;
  /** The branch directory: missing, a real directory on the disk's filesystem, or something else. */
  branch: 'absent' | 'directory' | BranchRefusal;
  /** Set when looking at the branch failed with this errno (the disk does not answer). */
  error?: string;
}

/** Step 13 for one disk: the refusal it causes, or `null`. */
export function judgeBranchDisk(o: BranchDiskObservation): AppError | null {
  if (!o.mounted) return dataDeleteErrors.diskNotMounted(o.disk, 'not_mounted');
  if (o.error !== undefined) return dataDeleteErrors.diskNotMounted(o.disk, 'not_mounted', o.error);
  if (o.mountedUuid !== null && o.mountedUuid.toLowerCase() !== o.expectedUuid.toLowerCase()) {
    return dataDeleteErrors.diskNotMounted(o.disk, 'wrong_filesystem');
  }
  if (o.branch !== 'absent' && o.branch !== 'directory') {
    return dataDeleteErrors.branchNotDirectory(o.disk, o.path, o.branch);
  }
  return null;
}

/** Step 13 over every branch disk, in branch order: the first refusal is thrown. */
export function checkBranchDisks(observations: readonly BranchDiskObservation[]): void {
  for (const o of observations) {
    const refusal = judgeBranchDisk(o);
    if (refusal) throw refusal;
  }
}
