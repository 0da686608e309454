import { matchesIdentity, type DiskInventoryEntry } from '@appliance/common';
import type { ArraySlotIdentity, ExternalDiskRow } from './types.ts';

export type RowMatch =
  | { status: 'found'; disk: DiskInventoryEntry }
  | { status: 'missing' }
  | { status: 'ambiguous'; candidates: DiskInventoryEntry[] };

/**
 * Whether a registered row and an inventory entry are the same disk: the shared identity rule
 * (03 §2.3), except that a weak row without an fs UUID (left by a failed format) matches by
 * `device` and `sizeBytes` (07 §2.3).
 */
export function rowMatches(row: ExternalDiskRow, disk: DiskInventoryEntry): boolean {
  if (row.weakIdentity && row.fsUuid === null) {
    return disk.device === row.device && disk.sizeBytes === row.sizeBytes;
  }
  return matchesIdentity(row, disk);
}

/** The inventory entry of a registered row; two hits count as ambiguous. */
export function findRowDisk(row: ExternalDiskRow, disks: readonly DiskInventoryEntry[]): RowMatch {
  const hits = disks.filter((d) => rowMatches(row, d));
  if (hits.length === 0) return { status: 'missing' };
  if (hits.length > 1) return { status: 'ambiguous', candidates: hits };
  return { status: 'found', disk: hits[0]! };
}

/** The registered row this disk belongs to, or null. */
export function rowOfDisk(
  disk: DiskInventoryEntry,
  rows: readonly ExternalDiskRow[],
): ExternalDiskRow | null {
  return rows.find((row) => rowMatches(row, disk)) ?? null;
}

/** The array slot whose disk this is (03 §2.3 against `array_disks`), or null. */
export function arraySlotOf(
  disk: DiskInventoryEntry,
  slots: readonly ArraySlotIdentity[],
): ArraySlotIdentity | null {
  return slots.find((s) => matchesIdentity(s, disk)) ?? null;
}
