import { AppError, confirmationMatches, confirmationRequired, erasePhrase } from '@appliance/common';
import { foreignStickRefusal, isForeignStick } from './foreign-stick.ts';
import { arraySlotOf } from './identity.ts';
import { assertLabelFits } from './label.ts';
import type { ResolvedDisk } from './resolve.ts';
import type { ArraySlotIdentity, ExternalFilesystem, ProbeResult } from './types.ts';

export interface FormatCheckInput {
  resolved: ResolvedDisk;
  slots: readonly ArraySlotIdentity[];
  filesystem: ExternalFilesystem;
  /** The typed confirmation from the request: absent, null, or the text. */
  confirmation: string | null | undefined;
  /** Fresh `blkid -p` probes of the disk and its partitions (the re-check under the lock). */
  probes?: readonly ProbeResult[];
}

/** A format that passed every check: the disk, and the phrase that was confirmed. */
export interface ApprovedFormat extends ResolvedDisk {
  filesystem: ExternalFilesystem;
  confirmed: string;
}

/**
 * Checks 7–13 of 07 §6.3 in their order, on a resolved disk. The stick check comes before the
 * confirmation is looked at; the confirmation comes last. Throws the refusal as an AppError.
 */
export function checkFormat(input: FormatCheckInput): ApprovedFormat {
  const { resolved, slots, filesystem, probes = [] } = input;
  const { disk, row, label } = resolved;
  // 7
  if (isForeignStick(disk, probes)) throw foreignStickRefusal(disk.device);
  // 8
  if (disk.boot) {
    throw new AppError(
      409,
      'boot_device',
      `${disk.device} is the system disk the appliance runs from; the system disk is never formatted. Choose another disk.`,
      { device: disk.device, label },
    );
  }
  // 9
  const slot = arraySlotOf(disk, slots);
  if (slot) {
    throw new AppError(
      409,
      'array_member',
      `${disk.device} is the array disk at ${slot.mountpoint}; array disks are never formatted as external disks. Choose another disk.`,
      { device: disk.device, mountpoint: slot.mountpoint },
    );
  }
  // 10
  const failedProbe = probes.find((p) => p.failed);
  if (disk.probeFailed || failedProbe) {
    throw new AppError(
      400,
      'unmanaged_device',
      `${disk.device} could not be probed: check the disk and its cable, then try again.`,
      { device: failedProbe?.device ?? disk.device },
    );
  }
  // 11
  if (disk.inUse || disk.mountpoints.length > 0 || disk.holders.length > 0) {
    throw new AppError(
      409,
      'disk_mounted',
      `${disk.device} is in use (mounted, swap, or held by another device): eject or unmount it first, then try again.`,
      { device: disk.device, mountpoints: disk.mountpoints, holders: disk.holders },
    );
  }
  // 12
  assertLabelFits(label, filesystem);
  // 13
  const expected = erasePhrase([disk.device]);
  if (!confirmationMatches(input.confirmation, expected)) throw confirmationRequired(expected);
  return { label, row, disk, filesystem, confirmed: expected };
}
