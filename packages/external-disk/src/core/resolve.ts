import { AppError, type DiskInventoryEntry } from '@appliance/common';
import { findRowDisk, rowOfDisk } from './identity.ts';
import { sameLabelIgnoringCase } from './label.ts';
import type { ExternalDiskRow } from './types.ts';

/** A `:label` resolved to its disk (07 §2.3): a registered row's disk, or an unregistered candidate. */
export interface ResolvedDisk {
  label: string;
  row: ExternalDiskRow | null;
  disk: DiskInventoryEntry;
}

const notFound = (label: string, registered: boolean): AppError =>
  new AppError(
    404,
    'external_disk_not_found',
    registered
      ? `The external disk "${label}" is registered but not attached: plug it in and try again.`
      : `No external disk is labelled "${label}": check the label in the list of external disks.`,
    { label, registered },
  );

const ambiguous = (label: string, disks: readonly DiskInventoryEntry[]): AppError =>
  new AppError(
    409,
    'external_disk_ambiguous',
    `More than one disk answers to the label "${label}" (${disks.map((d) => d.device).join(', ')}): unplug all but one of them and try again.`,
    { label, devices: disks.map((d) => d.device) },
  );

/**
 * Resolves `:label` to a disk. Lookups are exact (case-sensitive). Foreign sticks and array
 * members are resolved so that they get their own refusal; the boot disk is never a candidate
 * (a registered row that resolves to it is refused later with `boot_device`).
 */
export function resolveLabel(
  label: string,
  disks: readonly DiskInventoryEntry[],
  rows: readonly ExternalDiskRow[],
): ResolvedDisk {
  const row = rows.find((r) => r.label === label);
  if (row) {
    const match = findRowDisk(row, disks);
    if (match.status === 'missing') throw notFound(label, true);
    if (match.status === 'ambiguous') throw ambiguous(label, match.candidates);
    return { label, row, disk: match.disk };
  }
  // A label registered under another case is not a candidate: formatting would register a
  // duplicate label (labels are unique case-insensitively), and the listing does not offer it.
  if (rows.some((r) => sameLabelIgnoringCase(r.label, label))) throw notFound(label, false);
  const candidates = disks.filter((d) => !d.boot && d.label === label && rowOfDisk(d, rows) === null);
  if (candidates.length === 0) throw notFound(label, false);
  if (candidates.length > 1) throw ambiguous(label, candidates);
  return { label, row: null, disk: candidates[0]! };
}
