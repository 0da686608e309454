import { type DiskInventoryEntry, findDisk, matchesIdentity } from '@appliance/common';
import { foreignStick, invalidPlan, unmanagedDevice } from './refusals.ts';
import { findSlotDisk, slotIdentity } from './slots.ts';
import type { ArrayFilesystem, ArraySlot, DiskInventory, ExternalDiskRecord, Refusal } from './types.ts';

export interface ReplacementInput {
  slot: ArraySlot;
  device: string;
  filesystem?: ArrayFilesystem | null | undefined;
  inventory: DiskInventory;
  rows: readonly ArraySlot[];
  externals: readonly ExternalDiskRecord[];
}

export interface ReplacementOk {
  entry: DiskInventoryEntry;
  /** What the replacement will be formatted with: data → request or the slot's; parity → xfs. */
  filesystem: ArrayFilesystem;
  refusal?: undefined;
}

/**
 * The identity rules of a disk offered to the array, R1–R3 of 03 §5, in the order: not a listed
 * whole disk (R1), foreign stick (R2), system disk (R3), probe failed (R1). "In use" (R4) is a
 * separate check that comes after the membership and registration rules (R5–R7): a member of a
 * running array is always mounted, so "it is already a member" must answer before "it is mounted"
 * (03 §5, revised 2026-11-28).
 */
export function checkListedDisk(
  device: string,
  inventory: DiskInventory,
): { entry: DiskInventoryEntry; refusal?: undefined } | { refusal: Refusal; entry?: undefined } {
  const entry = inventory.disks.find((d) => d.device === device);
  if (!entry) {
    const parent = inventory.disks.find((d) => d.partitions.some((p) => p.device === device));
    if (parent) {
      return {
        refusal: unmanagedDevice(
          device,
          `is a partition of ${parent.device}, not a whole disk: choose the whole disk.`,
          {
            wholeDisk: parent.device,
          },
        ),
      };
    }
    const hint = inventory.labMode
      ? 'is not a disk this appliance manages (it is not in the disk inventory): choose a disk listed by GET /api/v1/disks.'
      : 'is not a disk this appliance manages (it is not in the disk inventory; loop devices are listed only in lab mode): choose a disk listed by GET /api/v1/disks.';
    return { refusal: unmanagedDevice(device, hint) };
  }
  if (entry.foreignStick) return { refusal: foreignStick(device) };
  // A system disk is named as such even when its probe failed (decision: docs/decisions/disks.md).
  if (entry.boot) {
    return {
      refusal: invalidPlan(
        'boot_device',
        `${device} holds the running system; it can never be used by a disk operation. Choose another disk.`,
      ),
    };
  }
  if (entry.probeFailed) {
    return {
      refusal: unmanagedDevice(
        device,
        'could not be probed for a filesystem: check the disk and its cable, then try again.',
      ),
    };
  }
  return { entry };
}

/** R4: the disk is mounted, an active swap area, or held by another block device (LVM, md). */
export function inUse(entry: DiskInventoryEntry): Refusal | null {
  if (!entry.inUse) return null;
  return invalidPlan(
    'disk_mounted',
    `${entry.device} is in use (${[...entry.mountpoints, ...entry.holders].join(', ')}): unmount it or stop what holds it, then try again.`,
    { mountpoints: entry.mountpoints, holders: entry.holders },
  );
}

/**
 * A disk for a new array (08 §9.3 step 4): R1–R3, then R7 (a registered external disk), then R4
 * (in use) — R7 before R4 as in 03 §5, since a registered backup disk is usually mounted.
 */
export function checkNewDisk(
  device: string,
  inventory: DiskInventory,
  externals: readonly ExternalDiskRecord[],
): { entry: DiskInventoryEntry; refusal?: undefined } | { refusal: Refusal; entry?: undefined } {
  const base = checkListedDisk(device, inventory);
  if (base.refusal) return base;
  const refusal = registeredExternal(base.entry, externals) ?? inUse(base.entry);
  return refusal ? { refusal } : base;
}

/** R7: the disk of a registered external disk (07). */
export function registeredExternal(
  entry: DiskInventoryEntry,
  externals: readonly ExternalDiskRecord[],
): Refusal | null {
  const ext = externals.find((e) => matchesIdentity(e, entry));
  if (!ext) return null;
  return invalidPlan(
    'registered_external',
    `${entry.device} is registered as the external disk "${ext.label}": unregister it first or choose another disk.`,
    { label: ext.label },
  );
}

/** Current inventory size of a row's disk (present: R8 has passed). */
function rowSize(row: ArraySlot, inventory: DiskInventory): number | null {
  const m = findDisk(slotIdentity(row), inventory);
  return m.status === 'found' ? m.disk.sizeBytes : null;
}

/** R1–R12 of 03 §5 in the order R1, R2, R3, R5, R6, R7, R4, R8–R12; the first failure answers. */
export function checkReplacement(input: ReplacementInput): ReplacementOk | { refusal: Refusal } {
  const { slot, device, inventory, rows } = input;
  const base = checkListedDisk(device, inventory); // R1–R3
  if (base.refusal) return { refusal: base.refusal };
  const entry = base.entry;

  // R5: the slot's own disk (by identity; a stored path is a hint only)
  if (matchesIdentity(slotIdentity(slot), entry)) {
    return {
      refusal: invalidPlan(
        'same_disk',
        `${device} is already the disk of ${slot.mountpoint}: choose a different disk.`,
      ),
    };
  }
  const others = rows.filter((r) => r.id !== slot.id);
  // R6: another member's disk (also a copy with a member's fs UUID and size, in the lab)
  const member = others.find((r) => matchesIdentity(slotIdentity(r), entry));
  if (member) {
    return {
      refusal: invalidPlan(
        'already_member',
        `${device} is the disk of ${member.mountpoint} in the array: choose a disk that is not a member.`,
        {
          mountpoint: member.mountpoint,
        },
      ),
    };
  }
  // R7
  const ext = registeredExternal(entry, input.externals);
  if (ext) return { refusal: ext };
  // R4, after the identity rules: a member is mounted, and must be named as a member
  const busy = inUse(entry);
  if (busy) return { refusal: busy };
  // R8: every other member must be attached (unambiguously); a member matching several disks
  // names them all in `details.candidates` (03 §2.3), as the slot's own ambiguity does
  const unresolved = others
    .map((r) => ({ row: r, match: findSlotDisk(r, inventory) }))
    .filter(({ match }) => match.status !== 'found');
  if (unresolved.length > 0) {
    const missing = unresolved.map(({ row }) => row.mountpoint);
    const candidates = [
      ...new Set(
        unresolved.flatMap(({ match }) =>
          match.status === 'ambiguous' ? match.candidates.map((c) => c.device) : [],
        ),
      ),
    ];
    return {
      refusal: invalidPlan(
        'member_missing',
        candidates.length > 0
          ? `The disk of ${missing.join(', ')} is not attached or cannot be told apart from another attached disk (${candidates.join(', ')}): attach it, or detach the copy, before changing another member.`
          : `The disk of ${missing.join(', ')} is not attached (or cannot be told apart from another disk): attach it before changing another member.`,
        candidates.length > 0 ? { mountpoints: missing, candidates } : { mountpoints: missing },
      ),
    };
  }
  const filesystem: ArrayFilesystem = slot.role === 'parity' ? 'xfs' : (input.filesystem ?? slot.filesystem);
  // R9
  if (slot.role === 'parity' && input.filesystem != null && input.filesystem !== 'xfs') {
    return {
      refusal: invalidPlan(
        'parity_not_xfs',
        `A parity disk is always formatted as xfs (the parity file can exceed 16 TiB): leave "filesystem" out or send "xfs".`,
      ),
    };
  }
  if (slot.role === 'data') {
    // R10: not larger than any parity disk (report the smallest)
    const parities = rows
      .filter((r) => r.role === 'parity')
      .map((r) => ({ row: r, size: rowSize(r, inventory) }))
      .filter((p): p is { row: ArraySlot; size: number } => p.size !== null)
      .sort((a, b) => a.size - b.size);
    const smallest = parities[0];
    if (smallest && entry.sizeBytes > smallest.size) {
      return {
        refusal: invalidPlan(
          'exceeds_parity',
          `${device} (${entry.sizeBytes} bytes) is larger than the parity disk at ${smallest.row.mountpoint} (${smallest.size} bytes); SnapRAID needs every parity disk at least as large as the largest data disk: upgrade parity first`,
          {
            parityMountpoint: smallest.row.mountpoint,
            paritySizeBytes: smallest.size,
            sizeBytes: entry.sizeBytes,
          },
        ),
      };
    }
  } else {
    // R11 (lab exception: a loop device listed in lab mode passes)
    if (entry.weakIdentity && entry.lab !== true) {
      return {
        refusal: invalidPlan(
          'parity_weak_identity',
          `${device} has no WWN or serial the appliance can rely on (USB bridge or card reader); a parity disk must be attached directly (SATA, SAS or NVMe).`,
        ),
      };
    }
    // R12: at least as large as the largest data disk
    const largest = rows
      .filter((r) => r.role === 'data')
      .map((r) => ({ row: r, size: rowSize(r, inventory) }))
      .filter((d): d is { row: ArraySlot; size: number } => d.size !== null)
      .sort((a, b) => b.size - a.size)[0];
    if (largest && entry.sizeBytes < largest.size) {
      return {
        refusal: invalidPlan(
          'parity_too_small',
          `${device} (${entry.sizeBytes} bytes) is smaller than the data disk at ${largest.row.mountpoint} (${largest.size} bytes); a parity disk must be at least as large as the largest data disk: choose a larger disk.`,
          { requiredBytes: largest.size, dataMountpoint: largest.row.mountpoint },
        ),
      };
    }
  }
  return { entry, filesystem };
}
