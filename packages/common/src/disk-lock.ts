/**
 * The per-disk lock key (07 §6.5) shared by every operation that writes a whole disk (array setup,
 * upgrade, external format): `disk:<kernel name>`. One definition, so the operations exclude each other.
 */
export const diskLockKey = (device: string): string => `disk:${device.replace(/^\/dev\//, '')}`;
