import { describe, expect, it } from 'vitest';
import { mergerfsOptions, minFreeSpaceMiB, poolBranches } from './mergerfs.ts';
import {
  GENERATED_HEADER,
  type MountUnitSlot,
  escapeUnitPath,
  persistsMountUnits,
  renderMountUnits,
} from './mount-units.ts';

const U = {
  parity1: '0b1c2d3e-aaaa-4bbb-8ccc-123456789abc',
  disk1: '11111111-2222-4333-8444-555555555555',
  disk2: 'A0B1C2D3-E4F5-4a6b-8c7d-8e9f0a1b2c3d',
  cache: 'deadbeef-0000-4000-8000-000000000001',
};

// request order is not unit order: parity first, data by index, cache last
const slots: MountUnitSlot[] = [
  { role: 'cache', roleIndex: 1, mountpoint: '/mnt/cache', fsUuid: U.cache, filesystem: 'xfs' },
  { role: 'data', roleIndex: 2, mountpoint: '/mnt/disk2', fsUuid: U.disk2, filesystem: 'ext4' },
  { role: 'parity', roleIndex: 1, mountpoint: '/mnt/parity1', fsUuid: U.parity1, filesystem: 'xfs' },
  { role: 'data', roleIndex: 1, mountpoint: '/mnt/disk1', fsUuid: U.disk1, filesystem: 'btrfs' },
];
const pool = { createPolicy: 'mfs', minFreeSpaceMiB: 4096 };
const file = (r: ReturnType<typeof renderMountUnits>, p: string) =>
  r.files.find((f) => f.path === p)?.content;

describe('escapeUnitPath (systemd-escape --path --suffix=…)', () => {
  it.each([
    ['/mnt/disk1', 'mount', 'mnt-disk1.mount'],
    ['/mnt/user', 'mount', 'mnt-user.mount'],
    ['/mnt/parity2/', 'mount', 'mnt-parity2.mount'],
    ['//mnt//./cache', 'mount', 'mnt-cache.mount'],
    ['/', 'mount', '-.mount'],
    ['/mnt/a-b c', 'mount', 'mnt-a\\x2db\\x20c.mount'],
    ['/mnt/.hidden', 'mount', 'mnt-.hidden.mount'],
    ['/.hidden', 'mount', '\\x2ehidden.mount'],
    ['/mnt/ü', 'mount', 'mnt-\\xc3\\xbc.mount'],
    ['/mnt/x:y_z.w', 'mount', 'mnt-x:y_z.w.mount'],
    [
      '/dev/disk/by-uuid/0b1c2d3e-aaaa-4bbb-8ccc-123456789abc',
      'device',
      'dev-disk-by\\x2duuid-0b1c2d3e\\x2daaaa\\x2d4bbb\\x2d8ccc\\x2d123456789abc.device',
    ],
  ])('%s → %s', (p, suffix, name) => {
    expect(escapeUnitPath(p, suffix)).toBe(name);
  });

  it('refuses relative and unnormalized paths and over-long names', () => {
    expect(() => escapeUnitPath('mnt/disk1', 'mount')).toThrow(/absolute/);
    expect(() => escapeUnitPath('/mnt/../etc', 'mount')).toThrow(/normalized/);
    expect(() => escapeUnitPath(`/${'a'.repeat(250)}`, 'mount')).toThrow(/too long/);
  });
});

describe('persistsMountUnits (08 §9.3: outside lab mode and without a root prefix)', () => {
  it.each([
    [false, '', true],
    [false, '/', true],
    [true, '', false],
    [false, '/tmp/sandbox', false],
    [true, '/tmp/sandbox', false],
  ])('labMode %s, root %j → %s', (labMode, root, expected) => {
    expect(persistsMountUnits({ labMode, root })).toBe(expected);
  });
});

describe('renderMountUnits', () => {
  const r = renderMountUnits(slots, { pool });

  it('one mount unit per disk (parity, data by index, cache), then the pool; device drop-ins first', () => {
    expect(r.units).toEqual([
      'mnt-parity1.mount',
      'mnt-disk1.mount',
      'mnt-disk2.mount',
      'mnt-cache.mount',
      'mnt-user.mount',
    ]);
    expect(r.files.map((f) => f.path)).toEqual([
      'dev-disk-by\\x2duuid-0b1c2d3e\\x2daaaa\\x2d4bbb\\x2d8ccc\\x2d123456789abc.device.d/50-appliance-device-timeout.conf',
      'dev-disk-by\\x2duuid-11111111\\x2d2222\\x2d4333\\x2d8444\\x2d555555555555.device.d/50-appliance-device-timeout.conf',
      'dev-disk-by\\x2duuid-a0b1c2d3\\x2de4f5\\x2d4a6b\\x2d8c7d\\x2d8e9f0a1b2c3d.device.d/50-appliance-device-timeout.conf',
      'dev-disk-by\\x2duuid-deadbeef\\x2d0000\\x2d4000\\x2d8000\\x2d000000000001.device.d/50-appliance-device-timeout.conf',
      ...r.units,
    ]);
    for (const f of r.files) expect(f.content.startsWith(`${GENERATED_HEADER}\n`)).toBe(true);
  });

  it('a data disk: by-uuid device, its filesystem type, nofail, wanted by local-fs.target', () => {
    expect(file(r, 'mnt-disk1.mount')).toBe(`${GENERATED_HEADER}
# Array data disk 1, btrfs, filesystem UUID ${U.disk1}.
# Do not edit: the appliance rewrites or removes this file. Override with a drop-in instead.
[Unit]
Description=Array data disk 1 (/mnt/disk1)

[Mount]
What=/dev/disk/by-uuid/${U.disk1}
Where=/mnt/disk1
Type=btrfs
Options=defaults,nofail

[Install]
WantedBy=local-fs.target
`);
    expect(file(r, 'mnt-disk2.mount')).toContain('Type=ext4\n');
    // by-uuid links are lower case: an upper-case UUID is written as udev names it
    expect(file(r, 'mnt-disk2.mount')).toContain(`What=/dev/disk/by-uuid/${U.disk2.toLowerCase()}\n`);
  });

  it('parity and cache disks get their own units with their descriptions', () => {
    expect(file(r, 'mnt-parity1.mount')).toContain('Description=Array parity disk 1 (/mnt/parity1)\n');
    expect(file(r, 'mnt-parity1.mount')).toContain('Where=/mnt/parity1\nType=xfs\nOptions=defaults,nofail\n');
    expect(file(r, 'mnt-cache.mount')).toContain('Description=Array cache disk (/mnt/cache)\n');
  });

  it('the device timeout is a drop-in of the device unit (x-systemd.device-timeout is fstab-only)', () => {
    const dropin = r.files[0]?.content ?? '';
    expect(dropin).toContain('[Unit]\nJobRunningTimeoutSec=60s\n');
    for (const f of r.files) expect(f.content).not.toContain('x-systemd.device-timeout');
    const custom = renderMountUnits(slots, { pool, deviceTimeoutSec: 180 });
    expect(custom.files[0]?.content).toContain('JobRunningTimeoutSec=180s\n');
    expect(() => renderMountUnits(slots, { pool, deviceTimeoutSec: 0 })).toThrow(/timeout/);
  });

  it('the pool: branches cache first then data, the live mount options, ordered after its branches', () => {
    const unit = file(r, 'mnt-user.mount') ?? '';
    expect(unit).toContain(`[Unit]
Description=Array pool (/mnt/user, mergerfs)
DefaultDependencies=no
Requires=mnt-cache.mount mnt-disk1.mount mnt-disk2.mount
After=local-fs-pre.target mnt-cache.mount mnt-disk1.mount mnt-disk2.mount
Conflicts=umount.target
Before=umount.target

[Mount]
What=/mnt/cache:/mnt/disk1:/mnt/disk2
Where=/mnt/user
Type=fuse.mergerfs
Options=category.create=mfs,minfreespace=4096M,moveonenospc=true,dropcacheonclose=true,fsname=appliance-pool,allow_other

[Install]
WantedBy=local-fs.target
`);
    // parity is never a branch nor a requirement of the pool; mergerfs 2.33 refuses nofail
    expect(unit).not.toContain('parity');
    expect(unit).not.toContain('nofail');
    expect(unit).toContain(`Options=${mergerfsOptions(pool)}\n`);
  });

  it('without a cache the pool is the data disks only; without mergerfs no pool unit', () => {
    const noCache = renderMountUnits(
      slots.filter((s) => s.role !== 'cache'),
      { pool: { createPolicy: 'lfs', minFreeSpaceMiB: 16 } },
    );
    const unit = file(noCache, 'mnt-user.mount') ?? '';
    expect(unit).toContain('What=/mnt/disk1:/mnt/disk2\n');
    expect(unit).toContain('Requires=mnt-disk1.mount mnt-disk2.mount\n');
    expect(unit).toContain('category.create=lfs,minfreespace=16M,');
    const noPool = renderMountUnits(slots, { pool: null });
    expect(noPool.units).not.toContain('mnt-user.mount');
    expect(noPool.files).toHaveLength(8);
  });

  it('refuses what it cannot write safely', () => {
    const bad = (over: Partial<MountUnitSlot>) => [{ ...(slots[1] as MountUnitSlot), ...over }];
    expect(() => renderMountUnits(bad({ fsUuid: 'x\nExecStart=/bin/sh' }), { pool })).toThrow(/UUID/);
    expect(() => renderMountUnits(bad({ fsUuid: '1234-ABCD' }), { pool })).toThrow(/UUID/);
    expect(() => renderMountUnits(bad({ mountpoint: '/mnt/disk 1' }), { pool })).toThrow(/mountpoint/);
    expect(() => renderMountUnits([...bad({}), ...bad({})], { pool })).toThrow(/twice/);
  });
});

describe('pool settings shared with the live mount', () => {
  it('branches and minfreespace', () => {
    const m = (role: 'data' | 'parity' | 'cache', roleIndex: number, sizeBytes: number) => ({
      role,
      roleIndex,
      entry: { sizeBytes },
    });
    const members = [
      m('data', 2, 320 * 2 ** 20),
      m('parity', 1, 400 * 2 ** 20),
      m('cache', 1, 2 ** 40),
      m('data', 1, 2 ** 40),
    ];
    expect(poolBranches(members).map((x) => `${x.role}${x.roleIndex}`)).toEqual(['cache1', 'data1', 'data2']);
    expect(minFreeSpaceMiB(members)).toBe(16);
    expect(minFreeSpaceMiB([m('data', 1, 4e12)])).toBe(4096);
  });
});
