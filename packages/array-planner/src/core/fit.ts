/**
 * The data upgrade's last size check before it formats (03 §12): the slot's files must fit on the
 * new disk with 2 % kept for filesystem overhead. The plan only warned (`replacement_smaller_than_used`),
 * so the refusal says that they do not fit — not that they "no longer" do, which they may never have.
 */
import { AppError } from '@appliance/common';

/** `1.5 GiB` (binary units, one decimal above bytes). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function doesNotFit(plan: {
  role: string;
  mountpoint: string;
  replacementDevice: string;
  previousUsedBytes: number | null;
  sizeBytes: number;
}): AppError | null {
  const usable = Math.floor(plan.sizeBytes * 0.98);
  if (plan.role !== 'data' || plan.previousUsedBytes === null || plan.previousUsedBytes <= usable)
    return null;
  return new AppError(
    409,
    'invalid_plan',
    `The files on ${plan.mountpoint} (${formatBytes(plan.previousUsedBytes)}) do not fit on ${plan.replacementDevice} (${formatBytes(usable)} usable of ${formatBytes(plan.sizeBytes)}: 2 % is kept for filesystem overhead); nothing was written. Choose a larger disk, or move files off ${plan.mountpoint} first.`,
    { reason: 'does_not_fit', usedBytes: plan.previousUsedBytes, sizeBytes: plan.sizeBytes },
  );
}
