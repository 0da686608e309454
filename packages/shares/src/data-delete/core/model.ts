/** Plain data of share data delete (05): the inputs the core plans from and the report it answers with. */

/** Share names (08 §6): checked again here so the deleter never trusts its caller. */
export const DATA_DELETE_SHARE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

export type DataDeleteCacheMode = 'cache-then-move' | 'cache-only' | 'array-only';
export type DataDeleteRemovalState = 'evacuating' | 'evacuated' | 'unpooled' | 'unlisted' | null;

/** One `array_disks` row, as far as branch planning needs it. */
export interface DataDeleteSlot {
  role: 'data' | 'parity' | 'cache';
  roleIndex: number;
  /** Logical mountpoint (`/mnt/disk1`, `/mnt/cache`, `/mnt/parity1`). */
  mountpoint: string;
  fsUuid: string;
  removalState: DataDeleteRemovalState;
}

/** The share row, as far as the delete needs it. */
export interface DataDeleteShare {
  name: string;
  cacheMode: DataDeleteCacheMode;
}

/** `array_settings` plus the slots; `null` when no array is configured. */
export interface DataDeleteArray {
  migrationPending: boolean;
  slots: DataDeleteSlot[];
}

/** A disk and the directory named like the share on it (logical paths). */
export interface DiskDirectory {
  disk: string;
  path: string;
}

/** A branch of the plan: the disk, the branch directory and the filesystem the slot expects there. */
export interface PlannedBranch extends DiskDirectory {
  fsUuid: string;
}

export interface BranchPlan {
  share: string;
  /** Cache first, then data disks by ascending disk number (05 §3). */
  branches: PlannedBranch[];
  /** Pool directories named like the share that are not branches for this cache mode (05 §1). */
  nonBranches: DiskDirectory[];
}

/**
 * How a branch ended:
 * - `ok`: present, and everything below it was removed (or, in a dry run, would be);
 * - `absent`: the branch directory did not exist (nothing done);
 * - `incomplete`: some entries could not be removed (see the failures);
 * - `read_only`: the filesystem refused writes (`EROFS`); the branch was abandoned at the first one;
 * - `disk_error`: the disk stopped answering (`EIO`, `ENODEV`, …) or vanished; the branch was abandoned.
 */
export type BranchStatus = 'ok' | 'absent' | 'incomplete' | 'read_only' | 'disk_error';

export interface DeleteCounts {
  filesDeleted: number;
  dirsDeleted: number;
  bytesFreed: number;
}

export interface BranchReport extends DiskDirectory, DeleteCounts {
  present: boolean;
  status: BranchStatus;
  failureCount: number;
}

/** The 200 body of 05 §3 (plus `status` and `failureCount` per branch, our addition). */
export interface DeleteReport {
  share: string;
  dryRun: boolean;
  branches: BranchReport[];
  untouched: DiskDirectory[];
  totals: DeleteCounts;
}

/** One entry that could not be removed (or read): `error` is the errno name or `other_filesystem`. */
export interface DeleteFailure {
  disk: string;
  path: string;
  error: string;
}

export interface DeleteOutcome {
  report: DeleteReport;
  /** The first 100 failures. */
  failures: DeleteFailure[];
  failureCount: number;
}
