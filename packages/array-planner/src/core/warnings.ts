import type { DiskInventoryEntry } from '@appliance/common';
import type { ArraySlot, PlanWarning } from './types.ts';

/** ext4 caps a file at 16 TiB: the parity file on an ext4 parity disk cannot grow past it. */
export const EXT4_FILE_LIMIT_BYTES = 17_592_186_044_416;

export const singleParity = (): PlanWarning => ({
  code: 'single_parity',
  message:
    'The array has one parity disk: it survives one failed disk, and the old disk is read in full more than once. Make sure the last sync and scrub were clean, and keep the old disk until the last step.',
  details: {},
});

export const syncsHeld = (): PlanWarning => ({
  code: 'syncs_held',
  message: 'Syncs are held from step 2 to step 7; files written meanwhile are unprotected until then.',
  details: {},
});

export const usageUnknown = (mountpoint: string): PlanWarning => ({
  code: 'usage_unknown',
  message: `${mountpoint} is not mounted from its disk, so its used space is unknown; the estimate assumes the disk is full.`,
  details: { mountpoint },
});

export const smallerThanUsed = (usedBytes: number, sizeBytes: number): PlanWarning => ({
  code: 'replacement_smaller_than_used',
  message: `The files (${usedBytes} bytes) do not fit on the replacement (2 % of ${sizeBytes} bytes is kept for filesystem overhead); the upgrade job stops before formatting if this still holds.`,
  details: { usedBytes, sizeBytes, usableBytes: Math.floor(sizeBytes * 0.98) },
});

export const notLarger = (sizeBytes: number, previousSizeBytes: number): PlanWarning => ({
  code: 'replacement_not_larger',
  message: `The replacement (${sizeBytes} bytes) is not larger than the current disk (${previousSizeBytes} bytes): this is not an upgrade in size.`,
  details: { sizeBytes, previousSizeBytes },
});

export const notBlank = (entry: DiskInventoryEntry): PlanWarning => ({
  code: 'replacement_not_blank',
  message: `${entry.device} is not blank (${entry.filesystem ?? 'partitioned'}${entry.label ? `, label "${entry.label}"` : ''}); everything on it will be erased.`,
  details: { filesystem: entry.filesystem, label: entry.label, partitions: entry.partitions },
});

export const weakReplacement = (): PlanWarning => ({
  code: 'replacement_weak_identity',
  message:
    'The replacement is identified only by its filesystem UUID and size (no WWN or serial); keep it in the same enclosure and port.',
  details: {},
});

export const filesSinceLastSync = (mountpoint: string): PlanWarning => ({
  code: 'files_since_last_sync',
  message: `Only files present at the last sync can be rebuilt; files written to ${mountpoint} after it are lost.`,
  details: { mountpoint },
});

/** `duplicate_fs_uuid`: the replacement (or one of its partitions) carries a member's fs UUID. */
export function duplicateFsUuid(entry: DiskInventoryEntry, rows: readonly ArraySlot[]): PlanWarning[] {
  const uuids = new Set(
    [entry.fsUuid, ...entry.partitions.map((p) => p.fsUuid)].filter((u): u is string => !!u),
  );
  return rows
    .filter((r) => uuids.has(r.fsUuid))
    .map((r) => ({
      code: 'duplicate_fs_uuid',
      message: `${entry.device} holds a copy of the filesystem of ${r.mountpoint} (same UUID); don't start the array with both attached.`,
      details: { mountpoint: r.mountpoint, fsUuid: r.fsUuid },
    }));
}

/** `ext4_parity_file_limit`: another parity row is ext4 and the largest data disk after the change > 16 TiB. */
export function ext4ParityLimit(
  otherParities: readonly ArraySlot[],
  largestDataBytes: number,
): PlanWarning[] {
  if (largestDataBytes <= EXT4_FILE_LIMIT_BYTES) return [];
  return otherParities
    .filter((r) => r.filesystem === 'ext4')
    .map((r) => ({
      code: 'ext4_parity_file_limit',
      message: `The parity file on ${r.mountpoint} (ext4) cannot grow past 16 TiB: upgrade that parity disk (it becomes XFS).`,
      details: { parityMountpoint: r.mountpoint, largestDataBytes, limitBytes: EXT4_FILE_LIMIT_BYTES },
    }));
}
