import { describe, expect, it } from 'vitest';
import { identityFromLinks } from './by-id.ts';
import { isForeignStick, isUnraidLabel } from './foreign-stick.ts';
import { mountHolding, parseMountInfo, parseSwaps } from './mounts.ts';
import { decodeUdevEscapes, parseBlkidExport, parseUdevRecord } from './udev.ts';

describe('identityFromLinks (03 §2.3)', () => {
  it('scsi serials, the shortest link of a prefix, and partition links skipped', () => {
    expect(
      identityFromLinks([
        'scsi-0QEMU_QEMU_HARDDISK_drive-scsi0',
        'scsi-0QEMU_QEMU_HARDDISK_drive-scsi0-part1',
      ]),
    ).toEqual({
      wwn: null,
      serial: 'drive-scsi0',
      byIdName: 'scsi-0QEMU_QEMU_HARDDISK_drive-scsi0',
      weakIdentity: false,
    });
    // scsi-3… (NAA) is not a serial source, but it is a byIdName candidate
    expect(identityFromLinks(['scsi-35000c500a1b2c3d4'])).toMatchObject({
      serial: null,
      weakIdentity: true,
      byIdName: 'scsi-35000c500a1b2c3d4',
    });
  });

  it('virtio serial, and several WWNs take the first in sort order', () => {
    expect(identityFromLinks(['virtio-BHYVE-1234'])).toMatchObject({
      serial: 'BHYVE-1234',
      weakIdentity: false,
    });
    expect(identityFromLinks(['wwn-0x2', 'wwn-0x1'])).toMatchObject({
      wwn: '0x1',
      weakIdentity: false,
      byIdName: 'wwn-0x1',
    });
  });

  it('nvme-eui / nvme-nvme links are neither serial nor byIdName', () => {
    expect(identityFromLinks(['nvme-eui.0025385b71b0a1b2', 'nvme-nvme.144d-5334'])).toEqual({
      wwn: null,
      serial: null,
      byIdName: null,
      weakIdentity: true,
    });
  });

  it('no links at all: weak, everything null', () => {
    expect(identityFromLinks([])).toEqual({ wwn: null, serial: null, byIdName: null, weakIdentity: true });
  });
});

describe('udev and blkid records', () => {
  it('decodes \\xNN escapes as UTF-8 bytes', () => {
    expect(decodeUdevEscapes('a\\x20b\\xc3\\xa9')).toBe('a bé');
    expect(decodeUdevEscapes('plain')).toBe('plain');
  });

  it('a record without ID_FS_TYPE has no filesystem; empty values are absent', () => {
    expect(parseUdevRecord('E:ID_FS_UUID=x\nE:ID_FS_LABEL=y\n')).toEqual({
      filesystem: null,
      label: null,
      fsUuid: null,
      labelFatboot: null,
    });
    expect(parseUdevRecord('E:ID_FS_TYPE=xfs\nE:ID_FS_UUID=\nE:ID_FS_LABEL=data\n')).toEqual({
      filesystem: 'xfs',
      label: 'data',
      fsUuid: null,
      labelFatboot: null,
    });
  });

  it('blkid export: TYPE/LABEL/UUID/LABEL_FATBOOT, backslash escapes removed', () => {
    expect(
      parseBlkidExport('DEVNAME=/dev/loop1\nLABEL=my\\ disk\nLABEL_FATBOOT=UNRAID\nUUID=1-2\nTYPE=vfat\n'),
    ).toEqual({
      filesystem: 'vfat',
      label: 'my disk',
      fsUuid: '1-2',
      labelFatboot: 'UNRAID',
    });
    expect(parseBlkidExport('PTTYPE=gpt\n').filesystem).toBeNull();
  });
});

describe('mountinfo and swaps', () => {
  const text = [
    '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw',
    '40 27 0:45 /@ /mnt/my\\040pool rw shared:4 master:1 - btrfs /dev/sdb1 rw',
    '41 27 8:17 / /var rw - xfs /dev/sdb1 rw',
    '42 27 8:33 / /var rw - xfs /dev/sdc1 rw',
    'garbage',
  ].join('\n');

  it('parses optional fields and octal escapes', () => {
    const m = parseMountInfo(text);
    expect(m).toHaveLength(4);
    expect(m[1]).toEqual({
      major: 0,
      minor: 45,
      target: '/mnt/my pool',
      fsType: 'btrfs',
      source: '/dev/sdb1',
    });
  });

  it('the mount holding a path is the longest prefix, the last entry winning', () => {
    const m = parseMountInfo(text);
    expect(mountHolding(m, '/var/lib/appliance')?.source).toBe('/dev/sdc1');
    expect(mountHolding(m, '/variable')?.source).toBe('/dev/vda');
  });

  it('parses /proc/swaps', () => {
    expect(
      parseSwaps(
        'Filename\tType\tSize\tUsed\tPriority\n/dev/sda3 partition 8388604 0 -2\n/swapfile file 1 0 -3\n',
      ),
    ).toEqual([
      { file: '/dev/sda3', type: 'partition' },
      { file: '/swapfile', type: 'file' },
    ]);
  });
});

describe('isForeignStick (07 §5)', () => {
  it('labels compare ASCII case-insensitively after trimming spaces, never Unicode-folded', () => {
    expect(['UNRAID', 'unraid', 'Unraid', 'UNRAID ', ' UNRAID'].every(isUnraidLabel)).toBe(true);
    expect(isUnraidLabel('UNRAlD')).toBe(false);
    expect(isUnraidLabel('unraıd')).toBe(false); // dotless i would uppercase to I with Unicode folding
    expect(isUnraidLabel(null)).toBe(false);
  });

  it('whole disk or first partition vfat UNRAID; any partition of any type labelled UNRAID', () => {
    expect(isForeignStick({ filesystem: 'vfat', label: 'UNRAID', partitions: [] })).toBe(true);
    expect(isForeignStick({ filesystem: 'exfat', label: 'UNRAID', partitions: [] })).toBe(false);
    expect(isForeignStick({ filesystem: 'vfat', label: null, labelFatboot: 'unraid', partitions: [] })).toBe(
      true,
    );
    expect(
      isForeignStick({
        filesystem: null,
        label: null,
        partitions: [{ number: 1, filesystem: 'vfat', label: 'Unraid' }],
      }),
    ).toBe(true);
    expect(
      isForeignStick({
        filesystem: null,
        label: null,
        partitions: [{ number: 3, filesystem: 'xfs', label: 'UNRAID' }],
      }),
    ).toBe(true);
    expect(
      isForeignStick({
        filesystem: null,
        label: null,
        partitions: [{ number: 1, filesystem: 'ext4', label: 'boot' }],
      }),
    ).toBe(false);
  });

  it('direct probes count as well, and an entry already flagged stays a stick', () => {
    const blank = { filesystem: null, label: null, partitions: [] };
    expect(isForeignStick(blank, { disk: { filesystem: 'vfat', label: 'UNRAID' } })).toBe(true);
    expect(isForeignStick(blank, { partitions: [{ number: 2, filesystem: 'ext4', label: 'unraid' }] })).toBe(
      true,
    );
    expect(isForeignStick(blank, { disk: { filesystem: 'xfs', label: 'data' } })).toBe(false);
    expect(isForeignStick({ ...blank, foreignStick: true })).toBe(true);
  });
});
