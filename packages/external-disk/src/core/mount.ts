/**
 * Mount and eject (07 names them as separate operations; issue 23). A disk is mounted at
 * `/mnt/disks/<label>` (00 §2, the listing's `mountpoint`) by its filesystem UUID with `nosuid,nodev`;
 * eject syncs, unmounts, and powers a USB disk down where the kernel allows (a loop device cannot
 * be powered down: that is said, not faked). Plain data in, a refusal or a decision out.
 */
import { AppError, type DiskInventoryEntry } from '@appliance/common';
import { mountedTargets } from './external-disk.ts';
import { foreignStickRefusal, isForeignStick } from './foreign-stick.ts';
import { arraySlotOf } from './identity.ts';
import type { ResolvedDisk } from './resolve.ts';
import type { ArraySlotIdentity } from './types.ts';

export const MOUNT_OPTIONS = 'nosuid,nodev';

/** Mount targets of the disk and its partitions (an active swap is not a mount). */
export const mountTargets = (disk: DiskInventoryEntry): string[] =>
  disk.mountpoints.filter((m) => m !== '[swap]');

export interface MountDecision {
  /** Already mounted at its mountpoint: nothing to do. */
  alreadyMounted: boolean;
  fsUuid: string;
  filesystem: string | null;
}

/**
 * Whether `resolved` may be mounted at `mountpoint`: never a foreign stick, the boot disk or
 * an array member; it must hold a filesystem; mounted anywhere else is refused (eject it there
 * first); mounted at its own mountpoint is already done.
 */
/**
 * The disks this operation never touches, whatever the request says: a foreign stick, the boot
 * disk, an array member (mounted by the array).
 */
export function refuseSystemDisks(resolved: ResolvedDisk, slots: readonly ArraySlotIdentity[]): void {
  const { disk, label } = resolved;
  if (isForeignStick(disk)) throw foreignStickRefusal(disk.device);
  if (disk.boot)
    throw new AppError(
      409,
      'boot_device',
      `${disk.device} is the system disk the appliance runs from; it is never mounted or ejected as an external disk.`,
      { device: disk.device, label },
    );
  const slot = arraySlotOf(disk, slots);
  if (slot)
    throw new AppError(
      409,
      'array_member',
      `${disk.device} is the array disk at ${slot.mountpoint}; it is mounted by the array, never as an external disk.`,
      { device: disk.device, mountpoint: slot.mountpoint },
    );
}

export function checkMount(input: {
  resolved: ResolvedDisk;
  slots: readonly ArraySlotIdentity[];
  /** The disk's mountpoint as the inventory reports mount targets (`/mnt/disks/<label>`). */
  mountpoint: string;
}): MountDecision {
  refuseSystemDisks(input.resolved, input.slots);
  const { disk, label } = input.resolved;
  const targets = mountedTargets(disk);
  const fsUuid = disk.fsUuid;
  if (fsUuid === null || disk.filesystem === null)
    throw new AppError(
      409,
      'no_filesystem',
      `${disk.device} holds no filesystem this service can mount: format it first (POST /api/v1/disks/external/${label}/format).`,
      { device: disk.device, label },
    );
  if (targets.includes(input.mountpoint) && targets.length === 1)
    return { alreadyMounted: true, fsUuid, filesystem: disk.filesystem };
  if (targets.length > 0 || disk.holders.length > 0 || disk.inUse)
    throw new AppError(
      409,
      'disk_mounted',
      `${disk.device} is already in use elsewhere (mounted, swap, or held): unmount it there first, then mount it here.`,
      { device: disk.device, mountpoints: targets, holders: disk.holders },
    );
  return { alreadyMounted: false, fsUuid, filesystem: disk.filesystem };
}

/** `mount -o nosuid,nodev UUID=<uuid> <mountpoint>`: by filesystem UUID, never by a kernel name. */
export const mountArgs = (fsUuid: string, realMountpoint: string): string[] => [
  '-o',
  MOUNT_OPTIONS,
  `UUID=${fsUuid}`,
  realMountpoint,
];

/** Two attached filesystems with this UUID (a cloned disk): mounting by UUID would be a guess. */
export function uuidClash(fsUuid: string, disks: readonly DiskInventoryEntry[]): string[] {
  return disks
    .flatMap((d) => [
      ...(d.fsUuid === fsUuid ? [d.fsDevice ?? d.device] : []),
      ...d.partitions.filter((p) => p.fsUuid === fsUuid).map((p) => p.device),
    ])
    .filter((v, i, a) => a.indexOf(v) === i);
}

export type PowerDown =
  /** SCSI delete of the disk, then the USB device's `remove` (port power-off) where the kernel has it. */
  { kind: 'usb'; scsiDelete: string; usbRemove: string | null } | { kind: 'none'; reason: string };

/**
 * How to power the disk down, from its sysfs device path (`realpath /sys/class/block/<name>`):
 * a disk behind USB is deleted from the SCSI layer (the kernel flushes its cache and stops it) and
 * its USB device removed (the port is powered off where the hub allows); anything else — a loop
 * device, SATA, NVMe — is left attached and the answer says why.
 */
export function powerDownPlan(sysfsPath: string | null, kernelName: string): PowerDown {
  if (kernelName.startsWith('loop'))
    return { kind: 'none', reason: 'a loop device has no power to switch off; it stays attached, unmounted' };
  if (sysfsPath === null)
    return { kind: 'none', reason: 'the kernel does not show where the disk is attached' };
  const segs = sysfsPath.split('/');
  const usbIndex = segs.findIndex((s) => /^usb\d+$/.test(s));
  const blockIndex = segs.lastIndexOf('block');
  if (usbIndex < 0 || blockIndex < 0)
    return {
      kind: 'none',
      reason:
        'the disk is not attached over USB; it stays attached, unmounted (power it down with its enclosure)',
    };
  // …/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdc → the SCSI device is the segment before
  // `block`; the USB device is the last segment like `2-1` (not an interface `2-1:1.0`).
  const scsiDevice = segs.slice(0, blockIndex).join('/');
  let usbDevice: string | null = null;
  for (let i = usbIndex + 1; i < blockIndex; i++)
    if (/^\d+-[\d.]+$/.test(segs[i] ?? '')) usbDevice = segs.slice(0, i + 1).join('/');
  return {
    kind: 'usb',
    scsiDelete: `${scsiDevice}/delete`,
    usbRemove: usbDevice ? `${usbDevice}/remove` : null,
  };
}
