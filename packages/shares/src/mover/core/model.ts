/** The mover's data: what is on a share's cache, the data disks it may go to, and what it decided. */

import type { CreatePolicy } from '../../access/model.ts';

export type { CreatePolicy };

/** An entry below `/mnt/cache/<share>`, path relative to that directory (`a/b/c.txt`). */
export interface CacheEntry {
  rel: string;
  kind: 'file' | 'symlink' | 'dir' | 'other';
  /** Bytes (0 for directories). */
  size: number;
  /** `<dev>:<ino>`: names sharing it with `nlink > 1` are one hard-linked file. */
  inode: string;
  nlink: number;
  /** A directory with no entry at all (it is moved itself, so the pool keeps showing it). */
  empty?: boolean;
}

/** A data disk the mover may write to, in the array's order (`/mnt/disk1` first). */
export interface TargetDisk {
  mountpoint: string;
  /** Free bytes for an unprivileged writer now (statfs `bavail × bsize`). */
  freeBytes: number;
}

export type SkipReason =
  | 'open_for_writing'
  | 'exists_on_array'
  | 'no_space'
  | 'changed_during_move'
  | 'copy_failed';

export interface Skipped {
  share: string;
  /** Path relative to the share (`photos/2026/a.jpg`). */
  path: string;
  reason: SkipReason;
}

/** One file to move: a single name, or every name of a hard-linked file (they go together). */
export interface MoveUnit {
  rels: string[];
  kind: CacheEntry['kind'];
  size: number;
}

export interface PlannedMove extends MoveUnit {
  /** Index into the disks given to the planner. */
  disk: number;
}

export interface MovePlan {
  moves: PlannedMove[];
  skipped: Skipped[];
}
