import type { DiskInventory } from '@appliance/common';
import { toExternalDisk } from './external-disk.ts';
import { isForeignStick } from './foreign-stick.ts';
import { arraySlotOf, findRowDisk, rowOfDisk } from './identity.ts';
import { isValidLabel, sameLabelIgnoringCase } from './label.ts';
import type { ArraySlotIdentity, ExternalDisk, ExternalDiskRow } from './types.ts';

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `GET /disks/external` (07 §3): the registered rows by label, then the unregistered candidates
 * by label, then device. The boot disk, foreign sticks and array members are never candidates;
 * a row whose disk is now the boot disk is reported as not attached.
 */
export function listExternalDisks(
  inventory: DiskInventory,
  rows: readonly ExternalDiskRow[],
  slots: readonly ArraySlotIdentity[],
): ExternalDisk[] {
  const registered = [...rows]
    .sort((a, b) => byCodeUnit(a.label, b.label))
    .map((row) => {
      const match = findRowDisk(row, inventory.disks);
      const disk = match.status === 'found' && !match.disk.boot ? match.disk : null;
      return toExternalDisk(row.label, row, disk);
    });
  const candidates = inventory.disks
    .filter(
      (d) =>
        !d.boot &&
        !isForeignStick(d) &&
        arraySlotOf(d, slots) === null &&
        rowOfDisk(d, rows) === null &&
        isValidLabel(d.label) &&
        !rows.some((r) => sameLabelIgnoringCase(r.label, d.label as string)),
    )
    .sort((a, b) => byCodeUnit(a.label as string, b.label as string) || byCodeUnit(a.device, b.device))
    .map((d) => toExternalDisk(d.label as string, null, d));
  return [...registered, ...candidates];
}
