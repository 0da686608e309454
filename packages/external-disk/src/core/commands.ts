import type { DiskInventoryEntry } from '@appliance/common';
import type { ExternalFilesystem } from './types.ts';

export type FormatStep = 'wipefs' | 'rereadpt' | 'mkfs' | 'read_uuid';

/** One host command of a format, as an argument list (never a shell). */
export interface FormatCommand {
  step: FormatStep;
  command: string;
  args: string[];
  timeoutMs: number;
}

const SHORT = 30_000;
const MKFS_TIMEOUT = 600_000;

/** `-f`/`-F` exactly once: never `wipefs --force`, never a double force (07 §9). */
const MKFS: Record<ExternalFilesystem, (label: string, target: string) => string[]> = {
  xfs: (label, target) => ['-f', '-L', label, target],
  ext4: (label, target) => ['-F', '-L', label, target],
  btrfs: (label, target) => ['-f', '-L', label, target],
  exfat: (label, target) => ['-L', label, target],
};

/** The Debian package of each tool a format needs (07 §8). */
export const FORMAT_TOOL_PACKAGES: Readonly<Record<string, string>> = {
  wipefs: 'util-linux',
  blkid: 'util-linux',
  blockdev: 'util-linux',
  'mkfs.xfs': 'xfsprogs',
  'mkfs.ext4': 'e2fsprogs',
  'mkfs.btrfs': 'btrfs-progs',
  'mkfs.exfat': 'exfatprogs',
};

export const toolsFor = (filesystem: ExternalFilesystem): string[] => [
  'wipefs',
  'blkid',
  'blockdev',
  `mkfs.${filesystem}`,
];

/**
 * The path a format writes through (07 §6.4): `/dev/disk/by-id/<byIdName>` when the disk has
 * one, else its kernel path (loop devices). Always the whole disk.
 */
export function formatTarget(disk: Pick<DiskInventoryEntry, 'device' | 'byIdName'>): string {
  return disk.byIdName ? `/dev/disk/by-id/${disk.byIdName}` : disk.device;
}

/**
 * The commands of a format, in order (07 §6.4): wipe each partition (highest number first), wipe
 * the whole disk, re-read the partition table when partitions were wiped, mkfs on the whole
 * disk, then read the new UUID back.
 */
export function formatCommands(
  disk: Pick<DiskInventoryEntry, 'device' | 'byIdName' | 'partitions'>,
  filesystem: ExternalFilesystem,
  label: string,
): FormatCommand[] {
  const target = formatTarget(disk);
  const partitions = [...disk.partitions].sort((a, b) => b.number - a.number);
  const partitionPath = (p: { device: string; number: number }) =>
    disk.byIdName ? `${target}-part${p.number}` : p.device;
  return [
    ...partitions.map(
      (p): FormatCommand => ({
        step: 'wipefs',
        command: 'wipefs',
        args: ['-a', partitionPath(p)],
        timeoutMs: SHORT,
      }),
    ),
    { step: 'wipefs', command: 'wipefs', args: ['-a', target], timeoutMs: SHORT },
    ...(partitions.length > 0
      ? [
          {
            step: 'rereadpt',
            command: 'blockdev',
            args: ['--rereadpt', target],
            timeoutMs: SHORT,
          } as FormatCommand,
        ]
      : []),
    {
      step: 'mkfs',
      command: `mkfs.${filesystem}`,
      args: MKFS[filesystem](label, target),
      timeoutMs: MKFS_TIMEOUT,
    },
    {
      step: 'read_uuid',
      command: 'blkid',
      args: ['-p', '-s', 'UUID', '-o', 'value', target],
      timeoutMs: SHORT,
    },
  ];
}
