import fs from 'node:fs/promises';
import path from 'node:path';
import type { HostPaths } from '@appliance/common';
import type { SlotMeasurements } from '../core/types.ts';

/**
 * Measures a slot's mountpoint for the plan: `statfs` (used bytes) and `stat` of
 * `snapraid.parity`. Read-only; a missing path gives nulls. The core uses the figures only when
 * the mountpoint is mounted from the slot's disk.
 */
export async function measureSlot(paths: HostPaths, mountpoint: string): Promise<SlotMeasurements> {
  const dir = paths.real(mountpoint);
  const [stats, parity] = await Promise.all([
    fs.statfs(dir).catch(() => null),
    fs.stat(path.join(dir, 'snapraid.parity')).catch(() => null),
  ]);
  return {
    // (f_blocks − f_bfree) × block size (Node reports f_bsize, equal to f_frsize on Linux filesystems)
    usedBytes: stats ? (stats.blocks - stats.bfree) * stats.bsize : null,
    parityFileBytes: parity?.isFile() ? parity.size : null,
  };
}
