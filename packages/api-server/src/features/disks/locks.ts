/** The per-disk lock key, shared with the external-disk routes (07 §6.5): `disk:<kernel name>`. */
export const diskLockKey = (device: string): string => `disk:${device.replace(/^\/dev\//, '')}`;
