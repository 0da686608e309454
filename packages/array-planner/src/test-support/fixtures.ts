import type { DiskInventory, DiskInventoryEntry } from '@appliance/common';
import type { ArraySlot } from '../core/types.ts';

export const TB = 1_000_000_000_000;
export const TiB = 1024 ** 4;

export function disk(device: string, over: Partial<DiskInventoryEntry> = {}): DiskInventoryEntry {
  return {
    device,
    sizeBytes: 4 * TB,
    model: 'WDC WD40EFZX',
    wwn: null,
    serial: `SER-${device.slice(5)}`,
    byIdName: `ata-WDC_WD40EFZX_SER-${device.slice(5)}`,
    weakIdentity: false,
    filesystem: null,
    label: null,
    fsUuid: null,
    fsDevice: null,
    partitions: [],
    mountpoints: [],
    holders: [],
    inUse: false,
    probeFailed: false,
    boot: false,
    foreignStick: false,
    ...over,
  };
}

let nextId = 1;
/** A row whose identity is the serial of `entry` (and its fs UUID). */
export function row(
  role: ArraySlot['role'],
  roleIndex: number,
  mountpoint: string,
  entry: DiskInventoryEntry,
  over: Partial<ArraySlot> = {},
): ArraySlot {
  return {
    id: nextId++,
    role,
    roleIndex,
    device: entry.device,
    filesystem: 'xfs',
    fsUuid: entry.fsUuid ?? `uuid-${entry.device.slice(5)}`,
    wwn: entry.wwn,
    serial: entry.serial,
    byIdName: entry.byIdName,
    weakIdentity: entry.weakIdentity,
    sizeBytes: entry.sizeBytes,
    mountpoint,
    removalState: null,
    ...over,
  };
}

export const inventory = (disks: DiskInventoryEntry[], over: Partial<DiskInventory> = {}): DiskInventory => ({
  labMode: false,
  bootResolved: true,
  disks,
  ...over,
});

/**
 * The acceptance world of 03 §17: sda boot, sdb data /mnt/disk2 (4 TB, mounted), sdc data
 * /mnt/disk1 (4 TB), sdd parity /mnt/parity1 (16 TB), sdz a blank 10 TB spare.
 */
export function world() {
  const sda = disk('/dev/sda', { boot: true, inUse: true, mountpoints: ['/'], sizeBytes: 256e9 });
  const sdb = disk('/dev/sdb', {
    fsUuid: 'uuid-sdb',
    filesystem: 'xfs',
    label: 'disk2',
    mountpoints: ['/mnt/disk2'],
    inUse: true,
  });
  const sdc = disk('/dev/sdc', {
    fsUuid: 'uuid-sdc',
    filesystem: 'xfs',
    label: 'disk1',
    mountpoints: ['/mnt/disk1'],
    inUse: true,
  });
  const sdd = disk('/dev/sdd', {
    fsUuid: 'uuid-sdd',
    filesystem: 'xfs',
    label: 'parity1',
    sizeBytes: 16 * TB,
    wwn: '0x5000c500aaaa0001',
    mountpoints: ['/mnt/parity1'],
    inUse: true,
  });
  const sdz = disk('/dev/sdz', { sizeBytes: 10 * TB });
  const rows = [
    row('data', 1, '/mnt/disk1', sdc),
    row('data', 2, '/mnt/disk2', sdb),
    row('parity', 1, '/mnt/parity1', sdd),
  ];
  return { sda, sdb, sdc, sdd, sdz, rows, disks: [sda, sdb, sdc, sdd, sdz] };
}
