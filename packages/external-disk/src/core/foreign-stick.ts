import { AppError, type DiskInventoryEntry, isForeignStick as sharedIsForeignStick } from '@appliance/common';
import type { ProbeResult } from './types.ts';

/**
 * The foreign boot stick rule (07 §5), implemented once in the shared package. This adapts the
 * fresh `blkid -p` probes of the disk and its partitions (taken under the lock) to its input:
 * if the inventory or a probe says "stick", it is a stick.
 */
export function isForeignStick(entry: DiskInventoryEntry, probes: readonly ProbeResult[] = []): boolean {
  const facts = (p: ProbeResult) => ({ filesystem: p.type, label: p.label, labelFatboot: p.labelFatboot });
  const numbers = new Map(entry.partitions.map((p) => [p.device, p.number]));
  const disk = probes.find((p) => p.device === entry.device);
  const partitions = probes.flatMap((p) => {
    const number = numbers.get(p.device);
    return number === undefined ? [] : [{ ...facts(p), number }];
  });
  return sharedIsForeignStick(entry, { disk: disk ? facts(disk) : null, partitions });
}

export const foreignStickRefusal = (device: string): AppError =>
  new AppError(
    409,
    'foreign_stick',
    `${device} is an Unraid USB flash drive (a FAT filesystem labelled UNRAID); it is never formatted or written. Unplug it or choose another disk.`,
    { device },
  );
