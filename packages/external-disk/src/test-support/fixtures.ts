import type { DiskInventory, DiskInventoryEntry } from '@appliance/common';
import type { ArraySlotIdentity, ExternalDiskRow } from '../core/types.ts';

/** A plain inventory entry for core tests (a strong SATA disk unless overridden). */
export function entry(overrides: Partial<DiskInventoryEntry> & { device: string }): DiskInventoryEntry {
  const name = overrides.device.replace('/dev/', '');
  return {
    sizeBytes: 4_000_000_000_000,
    model: 'WDC WD40EFRX',
    wwn: null,
    serial: `SER-${name}`,
    byIdName: `ata-WDC_WD40EFRX_SER-${name}`,
    weakIdentity: false,
    filesystem: 'ext4',
    label: null,
    fsUuid: `uuid-${name}`,
    fsDevice: overrides.device,
    partitions: [],
    mountpoints: [],
    holders: [],
    inUse: false,
    probeFailed: false,
    boot: false,
    foreignStick: false,
    ...overrides,
  };
}

export function inventory(disks: DiskInventoryEntry[]): DiskInventory {
  return { labMode: false, bootResolved: true, disks };
}

export function row(overrides: Partial<ExternalDiskRow> & { label: string }): ExternalDiskRow {
  return {
    id: 1,
    device: '/dev/sdx',
    filesystem: 'ext4',
    fsUuid: null,
    wwn: null,
    serial: null,
    byIdName: null,
    weakIdentity: false,
    sizeBytes: 4_000_000_000_000,
    backupDestination: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    formattedAt: null,
    ...overrides,
  };
}

export function slot(mountpoint: string, disk: DiskInventoryEntry): ArraySlotIdentity {
  return {
    mountpoint,
    wwn: disk.wwn,
    serial: disk.serial,
    weakIdentity: disk.weakIdentity,
    fsUuid: disk.fsUuid,
    sizeBytes: disk.sizeBytes,
  };
}
