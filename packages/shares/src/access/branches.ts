import type { CacheMode } from './model.ts';

/** One array slot as far as branch planning needs it (03 §3, 08 §9). */
export interface BranchDisk {
  role: 'data' | 'parity' | 'cache';
  /** Logical mountpoint, e.g. `/mnt/disk1`, `/mnt/cache`. */
  mountpoint: string;
  removalState: 'evacuating' | 'evacuated' | 'unpooled' | 'unlisted' | null;
}

export interface ShareBranch {
  /** Logical mountpoint of the disk. */
  disk: string;
  /** Logical path of the branch directory: `<mountpoint>/<name>`. */
  path: string;
}

/** Data disks still in the pool: `unpooled` and `unlisted` disks have left it (05 §1). */
const inPool = (d: BranchDisk): boolean => d.removalState !== 'unpooled' && d.removalState !== 'unlisted';

/**
 * The branch directories of a share for a cache mode (05 §1): the cache first, then each pooled data
 * disk in the order given (callers pass slots ordered by role index). Parity disks are never branches.
 */
export function shareBranches(name: string, mode: CacheMode, disks: readonly BranchDisk[]): ShareBranch[] {
  const mounts: string[] = [];
  if (mode !== 'array-only') {
    for (const d of disks) if (d.role === 'cache') mounts.push(d.mountpoint);
  }
  if (mode !== 'cache-only') {
    for (const d of disks) if (d.role === 'data' && inPool(d)) mounts.push(d.mountpoint);
  }
  return mounts.map((disk) => ({ disk, path: `${disk.replace(/\/+$/, '')}/${name}` }));
}

/** Whether the array has a cache disk (the mover needs one; cache modes of a share use it). */
export const hasCacheDisk = (disks: readonly { role: string }[]): boolean =>
  disks.some((d) => d.role === 'cache');
