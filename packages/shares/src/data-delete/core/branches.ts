import type { BranchPlan, DataDeleteShare, DataDeleteSlot, DiskDirectory, PlannedBranch } from './model.ts';
import { DATA_DELETE_SHARE_NAME } from './model.ts';

/** The only mountpoints a branch may live under: the cache pool and the data disks (00 §2). */
const CACHE_MOUNTPOINT = '/mnt/cache';
const DATA_MOUNTPOINT = /^\/mnt\/disk[1-9][0-9]{0,3}$/;

/** Data disks in the pool: `unpooled` and `unlisted` disks have left it and are never touched (05 §1). */
export const isPooledDataSlot = (slot: DataDeleteSlot): boolean =>
  slot.role === 'data' &&
  (slot.removalState === null || slot.removalState === 'evacuating' || slot.removalState === 'evacuated');

/** Whether a logical path is exactly a branch path `<cache or data mountpoint>/<share name>`. */
export function isBranchPath(share: string, disk: string, path: string): boolean {
  return (
    DATA_DELETE_SHARE_NAME.test(share) &&
    (disk === CACHE_MOUNTPOINT || DATA_MOUNTPOINT.test(disk)) &&
    path === `${disk}/${share}`
  );
}

/**
 * The branches of a share (05 §1) from its cache mode and the array slots, in report order (cache
 * first, then data disks by ascending disk number), and the directories named like the share that
 * are not branches (listed as `untouched` when they exist, in the same order): on the cache or the
 * data disks a cache mode leaves out, and on the data disks that have left the pool (`unpooled`,
 * `unlisted`: never touched, but shown). Parity disks are never branches. A slot whose mountpoint
 * is not where the array setup puts it is a programming error.
 */
export function planBranches(share: DataDeleteShare, slots: readonly DataDeleteSlot[]): BranchPlan {
  if (!DATA_DELETE_SHARE_NAME.test(share.name))
    throw new Error(`not a share name: ${JSON.stringify(share.name)}`);
  const cache = slots.filter((s) => s.role === 'cache');
  const allData = slots.filter((s) => s.role === 'data').sort((a, b) => a.roleIndex - b.roleIndex);
  const data = allData.filter(isPooledDataSlot);
  for (const s of cache) assertMountpoint(s, s.mountpoint === CACHE_MOUNTPOINT);
  for (const s of allData) assertMountpoint(s, DATA_MOUNTPOINT.test(s.mountpoint));

  const useCache = share.cacheMode !== 'array-only';
  const useData = share.cacheMode !== 'cache-only';
  const branch = (s: DataDeleteSlot): PlannedBranch => ({
    disk: s.mountpoint,
    path: `${s.mountpoint}/${share.name}`,
    fsUuid: s.fsUuid,
  });
  const dir = (s: DataDeleteSlot): DiskDirectory => ({
    disk: s.mountpoint,
    path: `${s.mountpoint}/${share.name}`,
  });
  return {
    share: share.name,
    branches: [...(useCache ? cache : []), ...(useData ? data : [])].map(branch),
    nonBranches: [...(useCache ? [] : cache), ...allData.filter((s) => !useData || !isPooledDataSlot(s))].map(
      dir,
    ),
  };
}

function assertMountpoint(slot: DataDeleteSlot, ok: boolean): void {
  if (!ok) {
    throw new Error(
      `array slot ${slot.role}${slot.roleIndex} has an unexpected mountpoint ${slot.mountpoint}`,
    );
  }
}
