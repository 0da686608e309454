import { erasePhrase } from '@appliance/common';
import { estimate } from './estimate.ts';
import { invalidPlan } from './refusals.ts';
import { checkReplacement } from './replacement-checks.ts';
import { checkSlot, findSlotDisk } from './slots.ts';
import { dataReplaceSteps, parityReplaceSteps, rebuildCommand } from './steps.ts';
import type { DiskReplacePlan, PlanInput, PlanResult, PlanWarning } from './types.ts';
import { filesSinceLastSync, notBlank, singleParity, weakReplacement } from './warnings.ts';

/**
 * The replace plan (03 §11): rebuild a missing data or parity disk from parity onto a new disk,
 * at the same mountpoint. Read-only.
 */
export function planReplace(input: PlanInput): PlanResult<DiskReplacePlan> {
  const { request, rows, inventory } = input;
  const slotCheck = checkSlot(rows, request.mountpoint);
  if (slotCheck.refusal) return { refusal: slotCheck.refusal };
  const slot = slotCheck.slot;

  const match = findSlotDisk(slot, inventory);
  if (match.status === 'found') {
    return {
      refusal: {
        status: 409,
        code: 'slot_disk_present',
        message: `The disk of ${slot.mountpoint} is still attached (${match.disk.device}): to move it to another disk, plan an upgrade instead (POST /api/v1/disks/array/upgrade/plan).`,
        details: { mountpoint: slot.mountpoint, device: match.disk.device },
      },
    };
  }

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

  if (slot.sizeBytes !== null && entry.sizeBytes < slot.sizeBytes) {
    return {
      refusal: invalidPlan(
        'replacement_too_small',
        `${entry.device} (${entry.sizeBytes} bytes) is smaller than the disk it replaces (${slot.sizeBytes} bytes): choose a disk at least as large.`,
        { sizeBytes: entry.sizeBytes, requiredBytes: slot.sizeBytes },
      ),
    };
  }

  const command = rebuildCommand(slot.role, slot.roleIndex);
  const values = {
    mountpoint: slot.mountpoint,
    previousDevice: slot.device,
    replacementDevice: entry.device,
    filesystem,
    rebuildCommand: command,
    roleIndex: slot.roleIndex,
  };
  const warnings: PlanWarning[] = [];
  if (rows.filter((r) => r.role === 'parity').length === 1) warnings.push(singleParity());
  if (entry.filesystem !== null || entry.partitions.length > 0) warnings.push(notBlank(entry));
  if (slot.role === 'data' && entry.weakIdentity) warnings.push(weakReplacement());
  if (slot.role === 'data') warnings.push(filesSinceLastSync(slot.mountpoint));

  // Rebuild + check each read the slot's full size (the old disk's recorded size, else the new one's).
  const bytes = slot.sizeBytes ?? entry.sizeBytes;
  return {
    plan: {
      mountpoint: slot.mountpoint,
      role: slot.role,
      roleIndex: slot.roleIndex,
      previousDevice: slot.device,
      previousSizeBytes: slot.sizeBytes,
      previousUsedBytes: null,
      replacementDevice: entry.device,
      model: entry.model,
      wwn: entry.wwn,
      serial: entry.serial,
      sizeBytes: entry.sizeBytes,
      weakIdentity: entry.weakIdentity,
      currentFilesystem: entry.filesystem,
      currentLabel: entry.label,
      filesystem,
      newMountpoint: null,
      steps: slot.role === 'data' ? dataReplaceSteps(values) : parityReplaceSteps(values),
      confirmation: erasePhrase([entry.device]),
      warnings,
      estimate: estimate(bytes, 'disk_size', 2),
      rebuildCommand: command,
    },
  };
}
