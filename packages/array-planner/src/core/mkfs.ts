import type { ArrayFilesystem } from './types.ts';

/**
 * `mkfs.<fs>` arguments: forced (the disk was checked and confirmed), labelled, and with a chosen
 * filesystem UUID when one is given (a disk job picks it up front to tell its two disks apart).
 */
export function mkfsArgs(fs: ArrayFilesystem, o: { label: string; device: string; uuid?: string }): string[] {
  const uuid = o.uuid;
  switch (fs) {
    case 'xfs':
      return ['-f', '-L', o.label, ...(uuid ? ['-m', `uuid=${uuid}`] : []), o.device];
    case 'ext4':
      return ['-F', '-q', '-L', o.label, ...(uuid ? ['-U', uuid] : []), o.device];
    case 'btrfs':
      return ['-f', '-L', o.label, ...(uuid ? ['-U', uuid] : []), o.device];
  }
}
