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
