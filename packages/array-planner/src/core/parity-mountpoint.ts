import type { ArraySlot } from './types.ts';

const PARITY_MOUNTPOINT = /^\/mnt\/parity([1-9][0-9]*)$/;

/**
 * 03 §7.2: the lowest N ≥ 1 such that no row (any role) has mountpoint `/mnt/parityN`. Never the
 * old disk's mountpoint, never one any row uses.
 */
export function nextParityMountpoint(rows: readonly Pick<ArraySlot, 'mountpoint'>[]): string {
  const used = new Set<number>();
  for (const r of rows) {
    const m = PARITY_MOUNTPOINT.exec(r.mountpoint);
    if (m?.[1]) used.add(Number(m[1]));
  }
  let n = 1;
  while (used.has(n)) n++;
  return `/mnt/parity${n}`;
}
