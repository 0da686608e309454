import type { DiskInventoryEntry } from '@appliance/common';
import { externalMountpoint } from './label.ts';
import type { ExternalDisk, ExternalDiskRow } from './types.ts';

/** Mountpoints that are mounts (the inventory reports active swap as `[swap]`). */
export const mountedTargets = (disk: DiskInventoryEntry): string[] =>
  disk.mountpoints.filter((m) => m !== '[swap]');

/**
 * The `ExternalDisk` shape (07 §2.2) of a label, its row (if registered) and its disk (if
 * attached). An attached disk reports live inventory values; otherwise the row's.
 */
export function toExternalDisk(
  label: string,
  row: ExternalDiskRow | null,
  disk: DiskInventoryEntry | null,
): ExternalDisk {
  return {
    label,
    registered: row !== null,
    attached: disk !== null,
    device: disk?.device ?? null,
    mountpoint: externalMountpoint(label),
    mounted: disk !== null && mountedTargets(disk).length > 0,
    boot: false,
    filesystem: disk ? disk.filesystem : (row?.filesystem ?? null),
    fsLabel: disk ? disk.label : null,
    fsUuid: disk ? disk.fsUuid : (row?.fsUuid ?? null),
    partitions: (disk?.partitions ?? []).map((p) => ({
      device: p.device,
      number: p.number,
      sizeBytes: p.sizeBytes,
      filesystem: p.filesystem,
      label: p.label,
    })),
    sizeBytes: disk?.sizeBytes ?? row?.sizeBytes ?? null,
    model: disk?.model ?? null,
    serial: disk ? disk.serial : (row?.serial ?? null),
    wwn: disk ? disk.wwn : (row?.wwn ?? null),
    weakIdentity: disk ? disk.weakIdentity : (row?.weakIdentity ?? false),
    backupDestination: row?.backupDestination ?? false,
    formattedAt: row?.formattedAt ?? null,
  };
}
