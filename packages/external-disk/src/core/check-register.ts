import { AppError, type DiskInventoryEntry } from '@appliance/common';
import { foreignStickRefusal, isForeignStick } from './foreign-stick.ts';
import { arraySlotOf, rowOfDisk } from './identity.ts';
import { sameLabelIgnoringCase } from './label.ts';
import type { ArraySlotIdentity, ExternalDiskRow } from './types.ts';

export interface RegisterInput {
  device: string;
  label: string;
  backupDestination: boolean;
}

/** The row a registration inserts (without `id` and `createdAt`, which the store sets). */
export type NewExternalDiskRow = Omit<ExternalDiskRow, 'id' | 'createdAt' | 'formattedAt'>;

/** The row fields that record a disk's identity and current filesystem. */
export function identityColumns(disk: DiskInventoryEntry) {
  return {
    device: disk.device,
    filesystem: disk.filesystem,
    fsUuid: disk.fsUuid,
    wwn: disk.wwn,
    serial: disk.serial,
    byIdName: disk.byIdName,
    weakIdentity: disk.weakIdentity,
    sizeBytes: disk.sizeBytes,
  };
}

/**
 * Register checks 4–8 of 07 §4, in order, against a fresh inventory, the array rows and the
 * registrations. Returns the row to insert; the disk itself is never touched.
 */
export function checkRegister(
  input: RegisterInput,
  disks: readonly DiskInventoryEntry[],
  rows: readonly ExternalDiskRow[],
  slots: readonly ArraySlotIdentity[],
): NewExternalDiskRow {
  const disk = disks.find((d) => d.device === input.device);
  // 4
  if (!disk || disk.probeFailed) {
    throw new AppError(
      400,
      'unmanaged_device',
      disk
        ? `${input.device} could not be probed: check the disk and its cable, then try again.`
        : `${input.device} is not a whole disk this appliance manages (a partition or an unlisted device): choose a whole disk from the disk list.`,
      { device: input.device },
    );
  }
  // 5
  if (isForeignStick(disk)) throw foreignStickRefusal(disk.device);
  // 6
  if (disk.boot) {
    throw new AppError(
      409,
      'boot_device',
      `${disk.device} is the system disk the appliance runs from; it cannot be an external disk. Choose another disk.`,
      { device: disk.device },
    );
  }
  // 7
  const slot = arraySlotOf(disk, slots);
  if (slot) {
    throw new AppError(
      409,
      'array_member',
      `${disk.device} is the array disk at ${slot.mountpoint}; it cannot also be an external disk. Choose another disk.`,
      { device: disk.device, mountpoint: slot.mountpoint },
    );
  }
  // 8
  const taken = rows.find((r) => sameLabelIgnoringCase(r.label, input.label));
  if (taken) throw labelTaken(taken.label);
  const existing = rowOfDisk(disk, rows);
  if (existing) {
    throw new AppError(
      409,
      'external_disk_exists',
      `${disk.device} is already registered as the external disk "${existing.label}".`,
      { label: existing.label },
    );
  }
  return { ...identityColumns(disk), label: input.label, backupDestination: input.backupDestination };
}

export const labelTaken = (label: string): AppError =>
  new AppError(
    409,
    'external_disk_exists',
    `The label "${label}" is already registered (labels are unique regardless of case): choose another label.`,
    { label },
  );

/** A registration whose filesystem UUID another row holds (re-checked inside the write). */
export const filesystemRegistered = (label: string): AppError =>
  new AppError(
    409,
    'external_disk_exists',
    `This disk is already registered as the external disk "${label}".`,
    {
      label,
    },
  );
