import { erasePhrase } from '@appliance/common';
import { estimate } from './estimate.ts';
import { nextParityMountpoint } from './parity-mountpoint.ts';
import { checkReplacement } from './replacement-checks.ts';
import { checkSlot, findSlotDisk, slotIdentity } from './slots.ts';
import { dataUpgradeSteps, parityUpgradeSteps, rebuildCommand } from './steps.ts';
import type { DiskUpgradePlan, PlanInput, PlanResult, PlanWarning, Refusal } from './types.ts';
import {
  duplicateFsUuid,
  ext4ParityLimit,
  notBlank,
  notLarger,
  singleParity,
  smallerThanUsed,
  syncsHeld,
  usageUnknown,
  weakReplacement,
} from './warnings.ts';
import { findDisk } from '@appliance/common';

/**
 * The disk upgrade plan (03 §7–§8): read-only, plain data in, `{plan} | {refusal}` out.
 * The caller has already answered the request-level checks (body, auth) and reads the inventory
 * after `checkSlot` passes (03 §8 order).
 */
export function planUpgrade(input: PlanInput): PlanResult<DiskUpgradePlan> {
  const { request, rows, inventory } = input;
  const slotCheck = checkSlot(rows, request.mountpoint);
  if (slotCheck.refusal) return { refusal: slotCheck.refusal };
  const slot = slotCheck.slot;

  const match = findSlotDisk(slot, inventory);
  if (match.status !== 'found') return { refusal: slotDiskMissing(slot.mountpoint, slot.device, match) };
  const slotDisk = match.disk;

  const checked = checkReplacement({
    slot,
    device: request.device,
    filesystem: request.filesystem,
    inventory,
    rows,
    externals: input.externals,
  });
  if (checked.refusal) return { refusal: checked.refusal };
  const { entry, filesystem } = checked;

  const mountedFromDisk = slotDisk.mountpoints.includes(slot.mountpoint);
  const previousUsedBytes = mountedFromDisk ? (input.measurements?.usedBytes ?? null) : null;
  const parityFileBytes = mountedFromDisk ? (input.measurements?.parityFileBytes ?? null) : null;
  const previousSizeBytes = slotDisk.sizeBytes;
  const newMountpoint = slot.role === 'parity' ? nextParityMountpoint(rows) : null;
  const values = {
    mountpoint: slot.mountpoint,
    previousDevice: slotDisk.device,
    replacementDevice: entry.device,
    filesystem,
    newMountpoint,
    roleIndex: slot.roleIndex,
    rebuildCommand: rebuildCommand(slot.role, slot.roleIndex),
  };

  const parityRows = rows.filter((r) => r.role === 'parity');
  const dataSizes = rows
    .filter((r) => r.role === 'data')
    .map((r) => {
      if (r.id === slot.id) return entry.sizeBytes;
      const m = findDisk(slotIdentity(r), inventory);
      return m.status === 'found' ? m.disk.sizeBytes : (r.sizeBytes ?? 0);
    });
  const largestDataBytes = Math.max(0, ...dataSizes);

  const warnings: PlanWarning[] = [];
  if (parityRows.length === 1) warnings.push(singleParity());
  if (slot.role === 'parity') warnings.push(syncsHeld());
  if (slot.role === 'data' && previousUsedBytes === null) warnings.push(usageUnknown(slot.mountpoint));
  if (
    slot.role === 'data' &&
    previousUsedBytes !== null &&
    previousUsedBytes > Math.floor(entry.sizeBytes * 0.98)
  ) {
    warnings.push(smallerThanUsed(previousUsedBytes, entry.sizeBytes));
  }
  if (entry.sizeBytes <= previousSizeBytes) warnings.push(notLarger(entry.sizeBytes, previousSizeBytes));
  if (entry.filesystem !== null || entry.partitions.length > 0) warnings.push(notBlank(entry));
  warnings.push(...duplicateFsUuid(entry, rows));
  if (slot.role === 'data' && entry.weakIdentity) warnings.push(weakReplacement());
  warnings.push(
    ...ext4ParityLimit(
      parityRows.filter((r) => r.id !== slot.id),
      largestDataBytes,
    ),
  );

  const est =
    slot.role === 'data'
      ? previousUsedBytes !== null
        ? estimate(previousUsedBytes, 'used_bytes', 2)
        : estimate(previousSizeBytes, 'disk_size', 2)
      : parityFileBytes !== null
        ? estimate(parityFileBytes, 'parity_file', 3)
        : estimate(previousSizeBytes, 'disk_size', 3);

  return {
    plan: {
      mountpoint: slot.mountpoint,
      role: slot.role,
      roleIndex: slot.roleIndex,
      previousDevice: slotDisk.device,
      previousSizeBytes,
      previousUsedBytes,
      replacementDevice: entry.device,
      model: entry.model,
      wwn: entry.wwn,
      serial: entry.serial,
      sizeBytes: entry.sizeBytes,
      weakIdentity: entry.weakIdentity,
      currentFilesystem: entry.filesystem,
      currentLabel: entry.label,
      filesystem,
      newMountpoint,
      steps: slot.role === 'data' ? dataUpgradeSteps(values) : parityUpgradeSteps(values),
      confirmation: erasePhrase([entry.device]),
      warnings,
      estimate: est,
    },
  };
}

function slotDiskMissing(
  mountpoint: string,
  recordedDevice: string,
  match: { status: 'missing' } | { status: 'ambiguous'; candidates: { device: string }[] },
): Refusal {
  const ambiguous = match.status === 'ambiguous';
  return {
    status: 409,
    code: 'slot_disk_missing',
    message: ambiguous
      ? `The disk of ${mountpoint} cannot be told apart from another attached disk (${match.candidates.map((c) => c.device).join(', ')}): detach the copy, or plan a replacement instead (POST /api/v1/disks/array/replace/plan).`
      : `The disk of ${mountpoint} (last seen as ${recordedDevice}) is not attached, so there is nothing to copy: plan a replacement instead (POST /api/v1/disks/array/replace/plan).`,
    details: {
      mountpoint,
      recordedDevice,
      ...(ambiguous ? { candidates: match.candidates.map((c) => c.device) } : {}),
    },
  };
}
