/** The mergerfs pool of 08 §9.3, shared by the live mount and the boot-persistent unit (pure). */
import type { SlotRole } from './types.ts';

/** Where the pool is mounted (logical). */
export const POOL_MOUNTPOINT = '/mnt/user';

/**
 * mergerfs skips a branch for new files below `minfreespace` (default 4 GiB). Keep the default on
 * real disks, and a twentieth of the smallest branch on small (lab) disks so the pool stays usable.
 */
export function minFreeSpaceMiB(members: readonly { role: string; entry: { sizeBytes: number } }[]): number {
  const branches = members.filter((m) => m.role !== 'parity').map((m) => m.entry.sizeBytes);
  const smallest = Math.min(...branches);
  return Math.max(1, Math.min(4096, Math.floor(smallest / 20 / (1024 * 1024))));
}

const MiB = 1024 * 1024;

/**
 * `minfreespace` in bytes for the recorded slots: what the mover keeps free on each data disk, as
 * the pool does. A slot whose size was never recorded counts as 0 bytes (then the 1 MiB floor).
 */
export function minFreeSpaceBytes(slots: readonly { role: string; sizeBytes: number | null }[]): number {
  return minFreeSpaceMiB(slots.map((s) => ({ role: s.role, entry: { sizeBytes: s.sizeBytes ?? 0 } }))) * MiB;
}

/** The pool's branches: the cache first, then the data disks by index (parity is never a branch). */
export function poolBranches<T extends { role: SlotRole; roleIndex: number }>(members: readonly T[]): T[] {
  return [
    ...members.filter((m) => m.role === 'cache'),
    ...members.filter((m) => m.role === 'data').sort((a, b) => a.roleIndex - b.roleIndex),
  ];
}

/**
 * The mergerfs option string. Deliberately free of `nofail`/`defaults`: Debian 12's mergerfs
 * 2.33.5 (libfuse 2 helper) refuses `nofail` with "fuse: unknown option `nofail'".
 * `allow_other`: smbd opens a share as its user, and FUSE refuses every user but the one that
 * mounted the pool (root) without it (Debian 12's mergerfs does not add it by itself).
 */
export function mergerfsOptions(pool: { createPolicy: string; minFreeSpaceMiB: number }): string {
  return [
    `category.create=${pool.createPolicy}`,
    `minfreespace=${pool.minFreeSpaceMiB}M`,
    'moveonenospc=true',
    'dropcacheonclose=true',
    'fsname=appliance-pool',
    'allow_other',
  ].join(',');
}
