import { describe, expect, it } from 'vitest';
import { formatCommands, formatTarget } from './commands.ts';

const argv = (cmds: ReturnType<typeof formatCommands>) =>
  cmds.map((c) => [c.step, c.command, ...c.args].join(' '));

describe('formatCommands (07 §6.4)', () => {
  it('a blank loop disk: wipe, mkfs, read back (no re-read without partitions)', () => {
    const cmds = formatCommands({ device: '/dev/loop3', byIdName: null, partitions: [] }, 'xfs', 'backup');
    expect(argv(cmds)).toEqual([
      'wipefs wipefs -a /dev/loop3',
      'mkfs mkfs.xfs -f -L backup /dev/loop3',
      'read_uuid blkid -p -s UUID -o value /dev/loop3',
    ]);
    expect(cmds.map((c) => c.timeoutMs)).toEqual([30_000, 600_000, 30_000]);
  });

  it('a partitioned disk with a by-id name: partitions highest first, through by-id, then re-read', () => {
    const disk = {
      device: '/dev/sde',
      byIdName: 'usb-WD_Elements_1234-0:0',
      partitions: [
        { device: '/dev/sde1', number: 1, sizeBytes: 1, filesystem: null, label: null, fsUuid: null },
        { device: '/dev/sde2', number: 2, sizeBytes: 1, filesystem: null, label: null, fsUuid: null },
      ],
    };
    expect(formatTarget(disk)).toBe('/dev/disk/by-id/usb-WD_Elements_1234-0:0');
    expect(argv(formatCommands(disk, 'ext4', 'backup'))).toEqual([
      'wipefs wipefs -a /dev/disk/by-id/usb-WD_Elements_1234-0:0-part2',
      'wipefs wipefs -a /dev/disk/by-id/usb-WD_Elements_1234-0:0-part1',
      'wipefs wipefs -a /dev/disk/by-id/usb-WD_Elements_1234-0:0',
      'rereadpt blockdev --rereadpt /dev/disk/by-id/usb-WD_Elements_1234-0:0',
      'mkfs mkfs.ext4 -F -L backup /dev/disk/by-id/usb-WD_Elements_1234-0:0',
      'read_uuid blkid -p -s UUID -o value /dev/disk/by-id/usb-WD_Elements_1234-0:0',
    ]);
  });

  it('each filesystem forces exactly once, never wipefs --force', () => {
    const disk = { device: '/dev/loop1', byIdName: null, partitions: [] };
    const mkfs = (fs: 'xfs' | 'ext4' | 'btrfs' | 'exfat') =>
      formatCommands(disk, fs, 'L').find((c) => c.step === 'mkfs');
    expect(mkfs('btrfs')?.args).toEqual(['-f', '-L', 'L', '/dev/loop1']);
    expect(mkfs('exfat')?.args).toEqual(['-L', 'L', '/dev/loop1']);
    for (const fs of ['xfs', 'ext4', 'btrfs', 'exfat'] as const) {
      const all = formatCommands(disk, fs, 'L').flatMap((c) => c.args);
      expect(all.filter((a) => a === '-F' || a === '-f').length).toBeLessThanOrEqual(1);
      expect(all).not.toContain('--force');
    }
  });
});
