import { confirmationMatches, erasePhrase } from '@appliance/common';
import type { Refusal } from './types.ts';

export const invalidPlan = (
  reason: string,
  message: string,
  details: Record<string, unknown> = {},
): Refusal => ({
  status: 400,
  code: 'invalid_plan',
  message,
  details: { reason, ...details },
});

export const foreignStick = (device: string): Refusal => ({
  status: 409,
  code: 'foreign_stick',
  message: `${device} is an Unraid USB flash drive (a FAT filesystem labelled UNRAID); it is never formatted or written. Unplug it or choose another disk.`,
  details: { device },
});

export const unmanagedDevice = (
  device: string,
  why: string,
  details: Record<string, unknown> = {},
): Refusal => ({
  status: 400,
  code: 'unmanaged_device',
  message: `${device} ${why}`,
  details: { device, ...details },
});

/** `409 confirmation_required` unless `given` is `ERASE <device>` byte for byte (03 §4), else null. */
export function confirmationRefusal(device: string, given: unknown): Refusal | null {
  const expected = erasePhrase([device]);
  if (confirmationMatches(given, expected)) return null;
  return {
    status: 409,
    code: 'confirmation_required',
    message: `Type the confirmation exactly as shown: ${expected}`,
    details: { expected },
  };
}

/** `409 disk_job_running` (03 §12 step 5), naming the job. */
export const diskJobRunning = (jobId: string): Refusal => ({
  status: 409,
  code: 'disk_job_running',
  message: `Another disk job is running (${jobId}): follow it with GET /api/v1/jobs/${jobId} and try again once it has ended.`,
  details: { jobId },
});
