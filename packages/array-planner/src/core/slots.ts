import { type DiskMatch, type StoredIdentity, findDisk } from '@appliance/common';
import type { ArraySlot, DiskInventory, Refusal } from './types.ts';
import { invalidPlan } from './refusals.ts';

/** The array exists when it has at least one parity and one data row (03 §3). */
export const arrayExists = (rows: readonly ArraySlot[]): boolean =>
  rows.some((r) => r.role === 'parity') && rows.some((r) => r.role === 'data');

const ROLE_ORDER = { parity: 0, data: 1, cache: 2 } as const;

/** The slots in the array's order (08 §9.2): parity, data, cache, then by role index. */
export const inSlotOrder = (rows: readonly ArraySlot[]): ArraySlot[] =>
  [...rows].sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.roleIndex - b.roleIndex);

export const slotIdentity = (row: ArraySlot): StoredIdentity => ({
  wwn: row.wwn,
  serial: row.serial,
  weakIdentity: row.weakIdentity,
  fsUuid: row.fsUuid,
  sizeBytes: row.sizeBytes,
});

/** The slot's disk in a fresh inventory, by the identity rule (never by the stored /dev path). */
export const findSlotDisk = (row: ArraySlot, inventory: DiskInventory): DiskMatch =>
  findDisk(slotIdentity(row), inventory);

export const noArray = (): Refusal =>
  invalidPlan('no_array', 'No array is set up yet: set one up first (POST /api/v1/disks/array).');

/**
 * 03 §8 steps 3–5, before any inventory read: the array exists, a data or parity row sits at the
 * mountpoint, and that row is not leaving the array.
 */
export function checkSlot(
  rows: readonly ArraySlot[],
  mountpoint: string,
):
  | { slot: ArraySlot & { role: 'data' | 'parity' }; refusal?: undefined }
  | { refusal: Refusal; slot?: undefined } {
  if (!arrayExists(rows)) return { refusal: noArray() };
  const slot = rows.find((r) => r.mountpoint === mountpoint);
  if (!slot || slot.role === 'cache') {
    return {
      refusal: {
        status: 404,
        code: 'disk_slot_not_found',
        message: `no data or parity disk at "${mountpoint}"`,
        details: { mountpoint },
      },
    };
  }
  if (slot.removalState !== null) {
    return {
      refusal: {
        status: 409,
        code: 'disk_leaving_array',
        message: `The disk at ${mountpoint} is leaving the array (${slot.removalState}); a new disk would inherit that state. Finish or cancel the removal first.`,
        details: { mountpoint, removalState: slot.removalState },
      },
    };
  }
  return { slot: slot as ArraySlot & { role: 'data' | 'parity' } };
}
