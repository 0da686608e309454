import type { DiskInventory, DiskInventoryEntry } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { matchDisks } from './bare-metal.ts';
import type { ArrayDiskRow } from './blockers.ts';

const row = (role: string, roleIndex: number, over: Partial<ArrayDiskRow> = {}): ArrayDiskRow => ({
  role,
  roleIndex,
  device: '/dev/old',
  fsUuid: `uuid-${role}${roleIndex}`,
  wwn: null,
  serial: null,
  byIdName: null,
  weakIdentity: true,
  sizeBytes: 1000,
  mountpoint: role === 'parity' ? `/mnt/parity${roleIndex}` : `/mnt/disk${roleIndex}`,
  removalState: null,
  ...over,
});
const disk = (device: string, over: Partial<DiskInventoryEntry> = {}): DiskInventoryEntry => ({
  device,
  sizeBytes: 1000,
  model: null,
  wwn: null,
  serial: null,
  byIdName: null,
  weakIdentity: true,
  filesystem: 'xfs',
  label: null,
  fsUuid: null,
  fsDevice: device,
  partitions: [],
  mountpoints: [],
  holders: [],
  inUse: false,
  probeFailed: false,
  boot: false,
  foreignStick: false,
  lab: true,
  ...over,
});
const inv = (disks: DiskInventoryEntry[], labMode = true): DiskInventory => ({
  labMode,
  bootResolved: true,
  disks,
});

describe('matchDisks (01 §4.9)', () => {
  it('matches recorded disks on new device names, in parity, data, cache order', () => {
    const rows = [row('data', 1), row('parity', 1), row('data', 2)];
    const r = matchDisks(
      rows,
      inv([
        disk('/dev/loop7', { fsUuid: 'uuid-data2' }),
        disk('/dev/loop5', { fsUuid: 'uuid-parity1' }),
        disk('/dev/loop6', { fsUuid: 'uuid-data1' }),
      ]),
      false,
    );
    expect(r.disks.map((d) => [d.name, d.state, d.device])).toEqual([
      ['parity disk 1 (/mnt/parity1, filesystem uuid-parity1)', 'matched', '/dev/loop5'],
      ['data disk 1 (/mnt/disk1, filesystem uuid-data1)', 'matched', '/dev/loop6'],
      ['data disk 2 (/mnt/disk2, filesystem uuid-data2)', 'matched', '/dev/loop7'],
    ]);
    expect(r.diskMapping.disks).toEqual([
      { role: 'parity', roleIndex: 1, device: '/dev/loop5' },
      { role: 'data', roleIndex: 1, device: '/dev/loop6' },
      { role: 'data', roleIndex: 2, device: '/dev/loop7' },
    ]);
  });

  it('absent, replaced (same WWN, new filesystem) and ambiguous (a disk and its clone)', () => {
    const rows = [row('parity', 1), row('data', 1, { wwn: '0xaa', weakIdentity: false }), row('data', 2)];
    const r = matchDisks(
      rows,
      inv([
        disk('/dev/sdc', { wwn: '0xaa', weakIdentity: false, fsUuid: 'other-uuid' }),
        disk('/dev/loop1', { fsUuid: 'uuid-data2' }),
        disk('/dev/loop2', { fsUuid: 'uuid-data2' }),
      ]),
      false,
    );
    expect(r.disks.map((d) => [d.state, d.device])).toEqual([
      ['absent', undefined],
      ['replaced', '/dev/sdc'],
      ['ambiguous', undefined],
    ]);
    expect(r.disks[1]?.name).toBe('data disk 1 (/mnt/disk1, WWN 0xaa)');
    expect(r.diskMapping.disks).toEqual([]);
  });

  it('a filesystem found on an unclaimed disk with another identity is replaced', () => {
    const r = matchDisks(
      [row('data', 1, { serial: 'S1', weakIdentity: false })],
      inv([disk('/dev/sdd', { serial: 'S2', weakIdentity: false, fsUuid: 'uuid-data1' })]),
      true,
    );
    expect(r.disks[0]).toMatchObject({ state: 'replaced', device: '/dev/sdd', serial: 'S1' });
    expect(r.schemaUpgrade).toBe(true);
  });

  it('never uses the boot device, and loop devices only in lab mode', () => {
    const rows = [row('data', 1)];
    expect(
      matchDisks(rows, inv([disk('/dev/sda', { boot: true, fsUuid: 'uuid-data1' })]), false).disks[0]?.state,
    ).toBe('absent');
    expect(
      matchDisks(rows, inv([disk('/dev/loop0', { fsUuid: 'uuid-data1' })], false), false).disks[0]?.state,
    ).toBe('absent');
  });

  it('omits empty optional fields', () => {
    const r = matchDisks([row('data', 1, { sizeBytes: null })], inv([]), false);
    expect(Object.keys(r.disks[0]!).sort()).toEqual([
      'fsUuid',
      'mountpoint',
      'name',
      'role',
      'roleIndex',
      'state',
      'weakIdentity',
    ]);
  });

  it('a disk without WWN or serial carrying the filesystem of a disk recorded with a WWN is replaced, never mapped', () => {
    const rows = [
      row('parity', 1, { wwn: '0x5000c500aaaa', weakIdentity: false, fsUuid: 'uuid-p' }),
      row('data', 1, { serial: 'ZR1', weakIdentity: false, fsUuid: 'uuid-d1' }),
    ];
    // The filesystems on weak disks (a copy, a USB bridge): same UUID and size, no strong identity.
    const r = matchDisks(
      rows,
      inv([disk('/dev/loop3', { fsUuid: 'uuid-p' }), disk('/dev/sdx', { fsUuid: 'uuid-d1' })]),
      false,
    );
    expect(r.disks.map((d) => [d.state, d.device])).toEqual([
      ['replaced', '/dev/loop3'],
      ['replaced', '/dev/sdx'],
    ]);
    expect(r.diskMapping.disks).toEqual([]);
  });

  it('a weak row never claims a strong disk by its filesystem; its own strong identity still matches', () => {
    const r = matchDisks(
      [row('data', 1), row('data', 2, { wwn: '0xbb', weakIdentity: false, fsUuid: 'old' })],
      inv([
        disk('/dev/sdb', { wwn: '0xcc', weakIdentity: false, fsUuid: 'uuid-data1' }),
        disk('/dev/sdc', { wwn: '0xbb', weakIdentity: false, fsUuid: 'old' }),
      ]),
      false,
    );
    expect(r.disks.map((d) => [d.state, d.device])).toEqual([
      ['replaced', '/dev/sdb'],
      ['matched', '/dev/sdc'],
    ]);
    expect(r.diskMapping.disks).toEqual([{ role: 'data', roleIndex: 2, device: '/dev/sdc' }]);
  });
});
