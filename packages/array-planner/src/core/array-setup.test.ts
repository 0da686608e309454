import { describe, expect, it } from 'vitest';
import { planArraySetup } from './array-setup.ts';
import { TB, disk, inventory, row } from '../test-support/fixtures.ts';
import { renderSnapraidConf } from './snapraid-conf.ts';

const sdb = disk('/dev/sdb', { sizeBytes: 8 * TB });
const sdc = disk('/dev/sdc', { sizeBytes: 4 * TB, filesystem: 'ntfs' });
const sdd = disk('/dev/sdd', { sizeBytes: 6 * TB });
const nvme = disk('/dev/nvme0n1', { sizeBytes: 1 * TB });
const boot = disk('/dev/sda', { boot: true, inUse: true, mountpoints: ['/'] });
const inv = inventory([boot, sdb, sdc, sdd, nvme]);

const ask = (
  disks: { device: string; role: 'data' | 'parity' | 'cache'; filesystem?: 'xfs' | 'ext4' | 'btrfs' }[],
  confirmation?: string,
  over = {},
) =>
  planArraySetup({
    request: {
      disks,
      createPolicy: 'lfs',
      confirmation:
        confirmation ??
        `ERASE ${disks
          .map((d) => d.device)
          .sort()
          .join(', ')}`,
    },
    rows: [],
    inventory: inv,
    externals: [],
    ...over,
  });

describe('planArraySetup (08 §9.3)', () => {
  it('assigns parity, data and cache in execution order with N per role in request order', () => {
    const r = ask([
      { device: '/dev/sdc', role: 'data', filesystem: 'ext4' },
      { device: '/dev/sdb', role: 'parity' },
      { device: '/dev/nvme0n1', role: 'cache' },
      { device: '/dev/sdd', role: 'data' },
    ]);
    expect(r.plan?.confirmation).toBe('ERASE /dev/nvme0n1, /dev/sdb, /dev/sdc, /dev/sdd');
    expect(r.plan?.createPolicy).toBe('lfs');
    expect(
      r.plan?.members.map((m) => [m.device, m.role, m.roleIndex, m.filesystem, m.mountpoint, m.label]),
    ).toEqual([
      ['/dev/sdb', 'parity', 1, 'xfs', '/mnt/parity1', 'parity1'],
      ['/dev/sdc', 'data', 1, 'ext4', '/mnt/disk1', 'disk1'],
      ['/dev/sdd', 'data', 2, 'xfs', '/mnt/disk2', 'disk2'],
      ['/dev/nvme0n1', 'cache', 1, 'xfs', '/mnt/cache', 'cache'],
    ]);
  });

  it('refuses in order: array_exists, duplicate, R1–R4/R7, plan shape, confirmation', () => {
    const ok = [
      { device: '/dev/sdb', role: 'parity' as const },
      { device: '/dev/sdc', role: 'data' as const },
    ];
    expect(ask(ok, 'wrong', { rows: [row('data', 1, '/mnt/disk1', sdd)] }).refusal).toMatchObject({
      status: 409,
      code: 'array_exists',
    });
    expect(ask([...ok, { device: '/dev/sdb', role: 'data' }]).refusal).toMatchObject({
      status: 400,
      code: 'bad_request',
    });
    expect(ask([...ok, { device: '/dev/sda', role: 'data' }], 'wrong').refusal).toMatchObject({
      status: 400,
      code: 'invalid_plan',
      details: { reason: 'boot_device' },
    });
    expect(ask([...ok, { device: '/dev/sdb1', role: 'data' }]).refusal).toMatchObject({
      code: 'unmanaged_device',
    });
    const stick = disk('/dev/sdf', { foreignStick: true });
    expect(
      ask([...ok, { device: '/dev/sdf', role: 'data' }], 'ERASE /dev/sdb, /dev/sdc, /dev/sdf', {
        inventory: inventory([sdb, sdc, stick]),
      }).refusal,
    ).toMatchObject({ status: 409, code: 'foreign_stick' });
    const ext = {
      label: 'usb',
      fsUuid: null,
      wwn: null,
      serial: 'SER-sdd',
      weakIdentity: false,
      sizeBytes: null,
    };
    expect(
      ask([...ok, { device: '/dev/sdd', role: 'data' }], undefined, { externals: [ext] }).refusal,
    ).toMatchObject({ details: { reason: 'registered_external', label: 'usb' } });
    // R7 before R4 (03 §5 revised): a registered backup disk is usually mounted, and is named as
    // the registered disk it is rather than as "in use"
    const mountedSdd = { ...sdd, inUse: true, mountpoints: ['/mnt/external/usb'] };
    expect(
      ask([...ok, { device: '/dev/sdd', role: 'data' }], undefined, {
        externals: [ext],
        inventory: inventory([boot, sdb, sdc, mountedSdd, nvme]),
      }).refusal,
    ).toMatchObject({ details: { reason: 'registered_external', label: 'usb' } });
    expect(
      ask([...ok, { device: '/dev/sdd', role: 'data' }], undefined, {
        inventory: inventory([boot, sdb, sdc, mountedSdd, nvme]),
      }).refusal,
    ).toMatchObject({ details: { reason: 'disk_mounted', mountpoints: ['/mnt/external/usb'] } });
    expect(ask([{ device: '/dev/sdc', role: 'data' }]).refusal).toMatchObject({
      details: { reason: 'parity_count' },
    });
    expect(
      ask([
        { device: '/dev/sdb', role: 'parity' },
        { device: '/dev/sdd', role: 'parity' },
        { device: '/dev/nvme0n1', role: 'parity' },
        { device: '/dev/sdc', role: 'data' },
      ]).refusal,
    ).toMatchObject({ details: { reason: 'parity_count' } });
    expect(ask([{ device: '/dev/sdb', role: 'parity' }]).refusal).toMatchObject({
      details: { reason: 'no_data_disk' },
    });
    expect(
      ask([...ok, { device: '/dev/sdd', role: 'cache' }, { device: '/dev/nvme0n1', role: 'cache' }]).refusal,
    ).toMatchObject({ details: { reason: 'cache_count' } });
    expect(
      ask([
        { device: '/dev/sdb', role: 'parity', filesystem: 'ext4' },
        { device: '/dev/sdc', role: 'data' },
      ]).refusal,
    ).toMatchObject({ details: { reason: 'parity_not_xfs' } });
    expect(
      ask([
        { device: '/dev/sdc', role: 'parity' },
        { device: '/dev/sdb', role: 'data' },
      ]).refusal,
    ).toMatchObject({ details: { reason: 'parity_too_small', requiredBytes: 8 * TB } });
    const usb = disk('/dev/sdu', { sizeBytes: 10 * TB, weakIdentity: true });
    expect(
      ask(
        [
          { device: '/dev/sdu', role: 'parity' },
          { device: '/dev/sdc', role: 'data' },
        ],
        undefined,
        { inventory: inventory([usb, sdc]) },
      ).refusal,
    ).toMatchObject({ details: { reason: 'parity_weak_identity' } });
    const loop = disk('/dev/loop1', { sizeBytes: 10 * TB, weakIdentity: true, lab: true });
    expect(
      ask(
        [
          { device: '/dev/loop1', role: 'parity' },
          { device: '/dev/sdc', role: 'data' },
        ],
        undefined,
        { inventory: inventory([loop, sdc]) },
      ).plan,
    ).toBeDefined();
    expect(ask(ok, 'ERASE /dev/sdc, /dev/sdb').refusal).toMatchObject({
      status: 409,
      code: 'confirmation_required',
      details: { expected: 'ERASE /dev/sdb, /dev/sdc' },
    });
    expect(ask(ok, undefined).plan).toBeDefined();
  });
});

describe('renderSnapraidConf', () => {
  it('renders parity, content and data lines, mapping paths for a root prefix', () => {
    const members = [
      { role: 'data' as const, roleIndex: 2, mountpoint: '/mnt/disk2' },
      { role: 'parity' as const, roleIndex: 1, mountpoint: '/mnt/parity1' },
      { role: 'data' as const, roleIndex: 1, mountpoint: '/mnt/disk1' },
      { role: 'parity' as const, roleIndex: 2, mountpoint: '/mnt/parity2' },
      { role: 'cache' as const, roleIndex: 1, mountpoint: '/mnt/cache' },
    ];
    expect(
      renderSnapraidConf(members, { contentFile: '/var/lib/appliance/snapraid.content' })
        .split('\n')
        .slice(1),
    ).toEqual([
      'parity /mnt/parity1/snapraid.parity',
      '2-parity /mnt/parity2/snapraid.parity',
      'content /var/lib/appliance/snapraid.content',
      'content /mnt/disk1/.snapraid.content',
      'content /mnt/disk2/.snapraid.content',
      'data d1 /mnt/disk1/',
      'data d2 /mnt/disk2/',
      '',
    ]);
    expect(
      renderSnapraidConf(members.slice(0, 2), {
        contentFile: '/sandbox/var/lib/appliance/snapraid.content',
        hostPath: (p) => `/sandbox${p}`,
      }),
    ).toContain('data d2 /sandbox/mnt/disk2/\n');
  });
});
