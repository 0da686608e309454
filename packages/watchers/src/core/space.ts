/**
 * `pool_above_threshold`, `cache_above_threshold` and `disk_near_minfreespace` from statfs of the
 * pool, the cache and each data disk against the settings' thresholds. A condition that holds stays
 * until the value is clearly back (2 points under a percentage threshold, 10 % above a free-space
 * limit), so a disk hovering at the threshold does not raise every minute.
 */
import { type DiskLabel, describeDisk, formatBytes, formatPercent, slotName } from './format.ts';
import type { Condition, HeldCondition, Observation } from './model.ts';
import type { SpaceThresholds } from './settings.ts';

/** statfs of one filesystem, as `df` reports it (free = available to unprivileged writers). */
export interface FsUsage {
  totalBytes: number;
  usedBytes: number;
  freeBytes: number;
}

export interface MeasuredDisk extends DiskLabel {
  mountpoint: string;
  /** null: not measured this cycle (the disk is offline or unmounted). */
  usage: FsUsage | null;
}

export interface SpaceFacts {
  /** The pool (`/mnt/user`); null when not measured; absent when there is no array. */
  pool?: { mountpoint: string; usage: FsUsage | null };
  cache?: MeasuredDisk;
  dataDisks: MeasuredDisk[];
  /** mergerfs `minfreespace` of the pool, in bytes. */
  minFreeSpaceBytes: number;
}

export const SPACE_KEY_PREFIX = 'space:';
export const POOL_KEY = 'space:pool';
export const CACHE_KEY = 'space:cache';
const diskKey = (mountpoint: string) => `space:disk:${mountpoint}`;

/** Points under a percentage threshold before a held condition clears. */
export const PERCENT_HYSTERESIS = 2;
/** Share above a free-space limit before a held condition clears. */
export const FREE_HYSTERESIS = 0.1;

/** Used share as `df` computes it: used / (used + available). */
export function usedPercent(u: FsUsage): number {
  const denominator = u.usedBytes + u.freeBytes;
  return denominator <= 0 ? 0 : (u.usedBytes / denominator) * 100;
}

export function evaluateSpace(
  facts: SpaceFacts,
  thresholds: SpaceThresholds,
  previous: readonly HeldCondition[],
): Observation {
  const held = new Set(previous.map((p) => p.key));
  const conditions: Condition[] = [];
  const unobserved: string[] = [];

  const overPercent = (key: string, u: FsUsage, threshold: number) => {
    const p = usedPercent(u);
    return held.has(key) ? p >= threshold - PERCENT_HYSTERESIS : p >= threshold;
  };

  if (facts.pool) {
    const { usage, mountpoint } = facts.pool;
    if (usage === null) unobserved.push(POOL_KEY);
    else if (overPercent(POOL_KEY, usage, thresholds.poolUsedPercent)) {
      const p = formatPercent(usedPercent(usage));
      conditions.push({
        key: POOL_KEY,
        eventType: 'pool_above_threshold',
        subject: `the pool ${mountpoint}`,
        value: p,
        title: `The pool is ${p} full`,
        message: `The pool ${mountpoint} is ${p} full (threshold ${thresholds.poolUsedPercent} %): ${formatBytes(usage.freeBytes)} free of ${formatBytes(usage.usedBytes + usage.freeBytes)}. Free space by deleting or moving files, or add a data disk (or upgrade one to a larger disk) before it fills up.`,
      });
    }
  }

  if (facts.cache) {
    const c = facts.cache;
    if (c.usage === null) unobserved.push(CACHE_KEY);
    else if (overPercent(CACHE_KEY, c.usage, thresholds.cacheUsedPercent)) {
      const p = formatPercent(usedPercent(c.usage));
      conditions.push({
        key: CACHE_KEY,
        eventType: 'cache_above_threshold',
        subject: describeDisk(c),
        value: p,
        title: `The cache is ${p} full`,
        message: `The cache ${describeDisk(c)} is ${p} full (threshold ${thresholds.cacheUsedPercent} %): ${formatBytes(c.usage.freeBytes)} free of ${formatBytes(c.usage.usedBytes + c.usage.freeBytes)}. New files of shares that write to the cache first fail once it is full: move files from the cache to the data disks, or set the busiest shares to array-only.`,
      });
    }
  }

  const limit = facts.minFreeSpaceBytes * thresholds.diskMinFreeFactor;
  for (const d of facts.dataDisks) {
    const key = diskKey(d.mountpoint);
    if (d.usage === null) {
      unobserved.push(key);
      continue;
    }
    const free = d.usage.freeBytes;
    const near = held.has(key) ? free < limit * (1 + FREE_HYSTERESIS) : free < limit;
    if (!near) continue;
    const below = free < facts.minFreeSpaceBytes;
    const value = `${formatBytes(free)} free`;
    conditions.push({
      key,
      eventType: 'disk_near_minfreespace',
      subject: describeDisk(d),
      value,
      title: `Data disk ${d.role && d.roleIndex ? slotName(d.role, d.roleIndex) : d.mountpoint} has ${value}`,
      message: `${describeDisk(d)} has ${formatBytes(free)} free, ${below ? 'below' : 'near'} the pool's minimum free space of ${formatBytes(facts.minFreeSpaceBytes)} (warning below ${thresholds.diskMinFreeFactor} × that, ${formatBytes(limit)}). ${below ? 'The pool no longer places new files on this disk' : 'Below the minimum the pool stops placing new files on this disk'}; files that grow on it can still fill it. Move some files from it to a disk with room, or add a data disk.`,
    });
  }
  return { conditions, unobserved };
}
