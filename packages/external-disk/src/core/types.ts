import type { StoredIdentity } from '@appliance/common';

/** Filesystems an external disk may be formatted with (07 §6.1); `xfs` is the default. */
export const EXTERNAL_FILESYSTEMS = ['xfs', 'ext4', 'btrfs', 'exfat'] as const;
export type ExternalFilesystem = (typeof EXTERNAL_FILESYSTEMS)[number];
export const DEFAULT_FILESYSTEM: ExternalFilesystem = 'xfs';

/** One `external_disks` row (07 §2.1) with camelCase names and booleans for the 0/1 columns. */
export interface ExternalDiskRow {
  id: number;
  label: string;
  /** Last kernel path seen; informational, never trusted to find the disk. */
  device: string;
  filesystem: string | null;
  fsUuid: string | null;
  wwn: string | null;
  serial: string | null;
  byIdName: string | null;
  weakIdentity: boolean;
  sizeBytes: number;
  backupDestination: boolean;
  createdAt: string;
  formattedAt: string | null;
}

/** An `array_disks` row as far as the external-disk rules need it: who it is and where it mounts. */
export interface ArraySlotIdentity extends StoredIdentity {
  mountpoint: string;
}

/** The API shape of an external disk (07 §2.2). Every field is always present. */
export interface ExternalDisk {
  label: string;
  registered: boolean;
  attached: boolean;
  device: string | null;
  mountpoint: string;
  mounted: boolean;
  boot: false;
  filesystem: string | null;
  fsLabel: string | null;
  fsUuid: string | null;
  partitions: ExternalDiskPartition[];
  sizeBytes: number | null;
  model: string | null;
  serial: string | null;
  wwn: string | null;
  weakIdentity: boolean;
  backupDestination: boolean;
  formattedAt: string | null;
}

export interface ExternalDiskPartition {
  device: string;
  number: number;
  sizeBytes: number;
  filesystem: string | null;
  label: string | null;
}

/**
 * What `blkid -p -o export <node>` says about one node (the disk or a partition), read right
 * before a format (07 §6.5). `failed` = the probe did not answer (not "no signature").
 */
export interface ProbeResult {
  device: string;
  failed: boolean;
  type: string | null;
  label: string | null;
  labelFatboot: string | null;
  uuid: string | null;
}
