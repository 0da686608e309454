import type { DiskInventory, DiskInventoryEntry } from '@appliance/common';

export type SlotRole = 'data' | 'parity' | 'cache';
export type ArrayFilesystem = 'xfs' | 'ext4' | 'btrfs';
export type RemovalState = 'evacuating' | 'evacuated' | 'unpooled' | 'unlisted';

export const FILESYSTEMS: readonly ArrayFilesystem[] = ['xfs', 'ext4', 'btrfs'];
export const REMOVAL_STATES: readonly RemovalState[] = ['evacuating', 'evacuated', 'unpooled', 'unlisted'];

/** One `array_disks` row (03 §3), camelCase. */
export interface ArraySlot {
  id: number;
  role: SlotRole;
  roleIndex: number;
  device: string;
  filesystem: ArrayFilesystem;
  fsUuid: string;
  wwn: string | null;
  serial: string | null;
  byIdName: string | null;
  weakIdentity: boolean;
  sizeBytes: number | null;
  mountpoint: string;
  removalState: RemovalState | null;
}

/** An external disk registration (07 §2), as far as the replacement checks need it. */
export interface ExternalDiskRecord {
  label: string;
  fsUuid: string | null;
  wwn: string | null;
  serial: string | null;
  weakIdentity: boolean;
  sizeBytes: number | null;
}

/** A refusal as plain data; the server turns it into the error body. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface PlanRequest {
  mountpoint: string;
  device: string;
  filesystem?: ArrayFilesystem | null | undefined;
}

/**
 * Facts measured by the adapter at the slot's mountpoint (statfs, stat of the parity file). The
 * core uses them only when the mountpoint is mounted from the slot's disk.
 */
export interface SlotMeasurements {
  /** `(f_blocks − f_bfree) × f_frsize` of the slot's mountpoint. */
  usedBytes: number | null;
  /** Size of `<mountpoint>/snapraid.parity`, null when absent. */
  parityFileBytes: number | null;
}

export interface PlanInput {
  request: PlanRequest;
  rows: readonly ArraySlot[];
  inventory: DiskInventory;
  externals: readonly ExternalDiskRecord[];
  measurements?: SlotMeasurements;
}

export interface PlanWarning {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

export interface PlanEstimate {
  bytesToCopy: number;
  basis: 'used_bytes' | 'disk_size' | 'parity_file';
  passes: number;
  assumedBytesPerSecond: number;
  seconds: number;
}

/** The 200 body of the upgrade plan (03 §7); every field always present. */
export interface DiskUpgradePlan {
  mountpoint: string;
  role: 'data' | 'parity';
  roleIndex: number;
  previousDevice: string;
  previousSizeBytes: number | null;
  previousUsedBytes: number | null;
  replacementDevice: string;
  model: string | null;
  wwn: string | null;
  serial: string | null;
  sizeBytes: number;
  weakIdentity: boolean;
  currentFilesystem: string | null;
  currentLabel: string | null;
  filesystem: ArrayFilesystem;
  newMountpoint: string | null;
  steps: string[];
  confirmation: string;
  warnings: PlanWarning[];
  estimate: PlanEstimate;
}

/** The replace plan (03 §11): the §7 fields plus the SnapRAID rebuild command. */
export interface DiskReplacePlan extends DiskUpgradePlan {
  rebuildCommand: string;
}

export type PlanResult<P> = { plan: P; refusal?: undefined } | { refusal: Refusal; plan?: undefined };

export type { DiskInventory, DiskInventoryEntry };
