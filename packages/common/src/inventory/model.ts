/** Disk inventory model (03 §2.1). The reader lives in ./reader.ts; cores take these as plain data. */

export interface PartitionEntry {
  device: string;
  number: number;
  sizeBytes: number;
  filesystem: string | null;
  label: string | null;
  fsUuid: string | null;
}

export interface DiskInventoryEntry {
  device: string;
  sizeBytes: number;
  model: string | null;
  wwn: string | null;
  serial: string | null;
  byIdName: string | null;
  weakIdentity: boolean;
  filesystem: string | null;
  label: string | null;
  fsUuid: string | null;
  fsDevice: string | null;
  partitions: PartitionEntry[];
  mountpoints: string[];
  holders: string[];
  inUse: boolean;
  probeFailed: boolean;
  boot: boolean;
  foreignStick: boolean;
  /** True for a loop device listed in lab mode (03 §2.5). */
  lab?: boolean;
}

export interface DiskInventory {
  labMode: boolean;
  bootResolved: boolean;
  disks: DiskInventoryEntry[];
}

/** A stored disk identity (array row, external row, archived row) for the match rule (03 §2.3). */
export interface StoredIdentity {
  wwn: string | null;
  serial: string | null;
  weakIdentity: boolean;
  fsUuid: string | null;
  sizeBytes: number | null;
}

export interface InventoryReadOptions {
  /**
   * Reuse an earlier `blkid -p` fallback probe's answer for a node that provably has not changed
   * since (probe-memory.ts). Only for reads that list: never for a read a write or a plan depends on.
   */
  reuseProbes?: boolean;
}

/** Provides a fresh inventory on every call (sysfs, udev, mounts, by-id read again each time). */
export interface InventoryReader {
  read(options?: InventoryReadOptions): Promise<DiskInventory>;
}
