import { describe, expect, it } from 'vitest';
import { TB, TiB, disk, inventory, row, world } from '../test-support/fixtures.ts';
import { nextParityMountpoint } from './parity-mountpoint.ts';
import type { PlanInput } from './types.ts';
import { planUpgrade } from './upgrade-plan.ts';

const input = (
  w: ReturnType<typeof world>,
  request: PlanInput['request'],
  over: Partial<PlanInput> = {},
): PlanInput => ({
  request,
  rows: w.rows,
  inventory: inventory(w.disks),
  externals: [],
  ...over,
});

describe('planUpgrade: acceptance scenarios of 03 §17', () => {
  it('1. data /mnt/disk2 onto a blank 10 TB disk: 8 steps, confirmation, single_parity', () => {
    const w = world();
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdz', filesystem: 'xfs' },
        { measurements: { usedBytes: 1 * TB, parityFileBytes: null } },
      ),
    );
    expect(r.refusal).toBeUndefined();
    const plan = r.plan!;
    expect(plan).toMatchObject({
      mountpoint: '/mnt/disk2',
      role: 'data',
      roleIndex: 2,
      previousDevice: '/dev/sdb',
      previousSizeBytes: 4 * TB,
      previousUsedBytes: 1 * TB,
      replacementDevice: '/dev/sdz',
      model: 'WDC WD40EFZX',
      serial: 'SER-sdz',
      wwn: null,
      sizeBytes: 10 * TB,
      weakIdentity: false,
      currentFilesystem: null,
      currentLabel: null,
      filesystem: 'xfs',
      newMountpoint: null,
      confirmation: 'ERASE /dev/sdz',
    });
    expect(plan.steps).toEqual([
      'Sync parity if "snapraid diff" reports anything waiting, then make /mnt/disk2 read-only: the pool keeps serving its files and puts new files on the other disks.',
      'Erase /dev/sdz and format it as xfs.',
      'Mount /dev/sdz at a staging path and copy every file from /mnt/disk2 to it, keeping owners, permissions, hard links, extended attributes and timestamps.',
      'Compare every copied file with SnapRAID\'s hashes ("snapraid check -a -d d2" on the copy); stop if anything differs.',
      'Unmount /dev/sdb and mount /dev/sdz at /mnt/disk2.',
      'Run "snapraid diff" and go on only if it reports no removed or changed files.',
      'Record /dev/sdz as the disk of /mnt/disk2 and release /dev/sdb, which is left unchanged.',
      'Make /mnt/disk2 writable again and run "snapraid sync".',
    ]);
    expect(plan.warnings.map((x) => x.code)).toEqual(['single_parity']);
    expect(plan.estimate).toEqual({
      bytesToCopy: 1 * TB,
      basis: 'used_bytes',
      passes: 2,
      assumedBytesPerSecond: 150000000,
      seconds: 13334,
    });
  });

  it('2. parity /mnt/parity1 onto a 20 TB disk: xfs, 7 steps, newMountpoint /mnt/parity2 (parity3 with two parities)', () => {
    const w = world();
    const big = disk('/dev/sdy', { sizeBytes: 20 * TB, wwn: '0x5000c500bbbb0001' });
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/parity1', device: '/dev/sdy' },
        {
          inventory: inventory([...w.disks, big]),
          measurements: { usedBytes: 4 * TB, parityFileBytes: 3.9e12 },
        },
      ),
    );
    const plan = r.plan!;
    expect(plan).toMatchObject({
      role: 'parity',
      roleIndex: 1,
      filesystem: 'xfs',
      newMountpoint: '/mnt/parity2',
      previousDevice: '/dev/sdd',
      confirmation: 'ERASE /dev/sdy',
    });
    expect(plan.steps).toEqual([
      'Sync parity if "snapraid diff" reports anything waiting, then hold syncs.',
      'Erase /dev/sdy, format it as xfs and mount it at /mnt/parity2.',
      'Rebuild the parity onto /mnt/parity2 from the data disks ("snapraid fix -d parity" against it); the array keeps using /mnt/parity1 meanwhile.',
      'Run "snapraid check" against the new parity disk.',
      'Switch the SnapRAID configuration from /mnt/parity1 to /mnt/parity2.',
      'Unmount /dev/sdd from /mnt/parity1 and release it; its parity file is left unchanged.',
      'Resume syncs.',
    ]);
    expect(plan.warnings.map((x) => x.code)).toEqual(['single_parity', 'syncs_held']);
    expect(plan.estimate).toEqual({
      bytesToCopy: 3.9e12,
      basis: 'parity_file',
      passes: 3,
      assumedBytesPerSecond: 150000000,
      seconds: 78000,
    });

    const p2 = disk('/dev/sde', {
      fsUuid: 'uuid-sde',
      sizeBytes: 16 * TB,
      wwn: '0x5000c500aaaa0002',
      mountpoints: ['/mnt/parity2'],
      inUse: true,
    });
    const rows2 = [...w.rows, row('parity', 2, '/mnt/parity2', p2)];
    const r2 = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/parity1', device: '/dev/sdy' },
        { rows: rows2, inventory: inventory([...w.disks, big, p2]) },
      ),
    );
    expect(r2.plan?.newMountpoint).toBe('/mnt/parity3');
    expect(r2.plan?.warnings.map((x) => x.code)).toEqual(['syncs_held']);
    expect(r2.plan?.estimate).toMatchObject({ basis: 'disk_size', bytesToCopy: 16 * TB, passes: 3 });
  });

  it('3. a 20 TB data replacement with a 16 TB parity: exceeds_parity, upgrade parity first', () => {
    const w = world();
    const big = disk('/dev/sdy', { sizeBytes: 20 * TB });
    const r = planUpgrade(
      input(w, { mountpoint: '/mnt/disk2', device: '/dev/sdy' }, { inventory: inventory([...w.disks, big]) }),
    );
    expect(r.refusal).toMatchObject({
      status: 400,
      code: 'invalid_plan',
      details: {
        reason: 'exceeds_parity',
        parityMountpoint: '/mnt/parity1',
        paritySizeBytes: 16 * TB,
        sizeBytes: 20 * TB,
      },
    });
    expect(r.refusal?.message).toMatch(/upgrade parity first$/);
  });

  it('4. a slot in any removal state: 409 disk_leaving_array', () => {
    for (const state of ['evacuating', 'evacuated', 'unpooled', 'unlisted'] as const) {
      const w = world();
      const rows = w.rows.map((r) => (r.mountpoint === '/mnt/disk2' ? { ...r, removalState: state } : r));
      const r = planUpgrade(input(w, { mountpoint: '/mnt/disk2', device: '/dev/sdz' }, { rows }));
      expect(r.refusal).toMatchObject({
        status: 409,
        code: 'disk_leaving_array',
        details: { mountpoint: '/mnt/disk2', removalState: state },
      });
    }
  });

  it('5. /mnt/disk9 and /mnt/cache: 404 disk_slot_not_found', () => {
    const w = world();
    const cacheDisk = disk('/dev/nvme0n1', { fsUuid: 'uuid-nvme', mountpoints: ['/mnt/cache'], inUse: true });
    const rows = [...w.rows, row('cache', 1, '/mnt/cache', cacheDisk)];
    for (const mp of ['/mnt/disk9', '/mnt/cache']) {
      const r = planUpgrade(input(w, { mountpoint: mp, device: '/dev/sdz' }, { rows }));
      expect(r.refusal).toEqual({
        status: 404,
        code: 'disk_slot_not_found',
        message: `no data or parity disk at "${mp}"`,
        details: { mountpoint: mp },
      });
    }
  });

  it('6. boot disk → boot_device; a partition or an unlisted loop → unmanaged_device', () => {
    const w = world();
    const withPart = disk('/dev/sdx', {
      partitions: [
        { device: '/dev/sdx1', number: 1, sizeBytes: 1, filesystem: null, label: null, fsUuid: null },
      ],
    });
    const inv = inventory([...w.disks, withPart]);
    expect(
      planUpgrade(input(w, { mountpoint: '/mnt/disk2', device: '/dev/sda' }, { inventory: inv })).refusal,
    ).toMatchObject({ status: 400, code: 'invalid_plan', details: { reason: 'boot_device' } });
    expect(
      planUpgrade(input(w, { mountpoint: '/mnt/disk2', device: '/dev/sdx1' }, { inventory: inv })).refusal,
    ).toMatchObject({
      status: 400,
      code: 'unmanaged_device',
      details: { device: '/dev/sdx1', wholeDisk: '/dev/sdx' },
    });
    expect(
      planUpgrade(input(w, { mountpoint: '/mnt/disk2', device: '/dev/loop3' }, { inventory: inv })).refusal,
    ).toMatchObject({ status: 400, code: 'unmanaged_device' });
    const failed = disk('/dev/sdw', { probeFailed: true });
    expect(
      planUpgrade(
        input(
          w,
          { mountpoint: '/mnt/disk2', device: '/dev/sdw' },
          { inventory: inventory([...w.disks, failed]) },
        ),
      ).refusal,
    ).toMatchObject({ code: 'unmanaged_device' });
    // a system disk whose probe failed is still named as the system disk
    const bootUnprobed = inventory([{ ...w.sda, probeFailed: true }, w.sdb, w.sdc, w.sdd]);
    expect(
      planUpgrade(input(w, { mountpoint: '/mnt/disk2', device: '/dev/sda' }, { inventory: bootUnprobed }))
        .refusal,
    ).toMatchObject({ details: { reason: 'boot_device' } });
  });

  it('7. another member at a new path → already_member (also a lab copy with the same fs UUID and size)', () => {
    const w = world();
    const moved = { ...w.sdc, device: '/dev/sdq', mountpoints: [], inUse: false };
    const inv = inventory([w.sda, w.sdb, moved, w.sdd, w.sdz]);
    expect(
      planUpgrade(input(w, { mountpoint: '/mnt/disk2', device: '/dev/sdq' }, { inventory: inv })).refusal,
    ).toMatchObject({ details: { reason: 'already_member', mountpoint: '/mnt/disk1' } });

    const labDisk = (dev: string, uuid: string | null, size: number, over = {}) =>
      disk(dev, {
        wwn: null,
        serial: null,
        byIdName: null,
        model: null,
        weakIdentity: true,
        lab: true,
        fsUuid: uuid,
        sizeBytes: size,
        ...over,
      });
    const l1 = labDisk('/dev/loop1', 'u1', 2e9, { mountpoints: ['/mnt/disk1'], inUse: true });
    const l2 = labDisk('/dev/loop2', 'u2', 2e9, { mountpoints: ['/mnt/disk2'], inUse: true });
    const lp = labDisk('/dev/loop3', 'up', 3e9, { mountpoints: ['/mnt/parity1'], inUse: true });
    const copy = labDisk('/dev/loop4', 'u1', 2e9);
    const rows = [
      row('data', 1, '/mnt/disk1', l1),
      row('data', 2, '/mnt/disk2', l2),
      row('parity', 1, '/mnt/parity1', lp),
    ];
    const r = planUpgrade({
      request: { mountpoint: '/mnt/disk2', device: '/dev/loop4' },
      rows,
      inventory: inventory([l1, l2, lp, copy], { labMode: true }),
      externals: [],
    });
    expect(r.refusal).toMatchObject({ details: { reason: 'already_member', mountpoint: '/mnt/disk1' } });
  });

  it('8. parity: ext4 requested → parity_not_xfs; too small → parity_too_small; USB → parity_weak_identity; lab loop passes', () => {
    const w = world();
    const big = disk('/dev/sdy', { sizeBytes: 20 * TB });
    const small = disk('/dev/sdv', { sizeBytes: 3 * TB });
    const usb = disk('/dev/sdu', {
      sizeBytes: 20 * TB,
      weakIdentity: true,
      serial: 'USB1',
      byIdName: 'usb-X_USB1-0:0',
    });
    const inv = inventory([...w.disks, big, small, usb]);
    const ask = (device: string, filesystem?: 'ext4' | 'xfs') =>
      planUpgrade(input(w, { mountpoint: '/mnt/parity1', device, filesystem }, { inventory: inv })).refusal;
    expect(ask('/dev/sdy', 'ext4')).toMatchObject({ details: { reason: 'parity_not_xfs' } });
    expect(ask('/dev/sdy', 'xfs')).toBeUndefined();
    expect(ask('/dev/sdv')).toMatchObject({
      details: { reason: 'parity_too_small', requiredBytes: 4 * TB, dataMountpoint: '/mnt/disk1' },
    });
    expect(ask('/dev/sdu')).toMatchObject({ details: { reason: 'parity_weak_identity' } });
    const loop = disk('/dev/loop9', { sizeBytes: 20 * TB, weakIdentity: true, serial: null, lab: true });
    expect(
      planUpgrade(
        input(
          w,
          { mountpoint: '/mnt/parity1', device: '/dev/loop9' },
          { inventory: inventory([...w.disks, loop], { labMode: true }) },
        ),
      ).plan?.weakIdentity,
    ).toBe(true);
  });

  it('9. a vfat disk labelled UNRAID → 409 foreign_stick', () => {
    const w = world();
    const stick = disk('/dev/sdt', {
      foreignStick: true,
      filesystem: 'vfat',
      label: 'UNRAID',
      sizeBytes: 16e9,
    });
    expect(
      planUpgrade(
        input(
          w,
          { mountpoint: '/mnt/disk2', device: '/dev/sdt' },
          { inventory: inventory([...w.disks, stick]) },
        ),
      ).refusal,
    ).toMatchObject({
      status: 409,
      code: 'foreign_stick',
      details: { device: '/dev/sdt' },
    });
  });

  it('10. 3.1 TB used → the documented estimate', () => {
    const w = world();
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
        { measurements: { usedBytes: 3_100_000_000_000, parityFileBytes: null } },
      ),
    );
    expect(r.plan?.estimate).toEqual({
      bytesToCopy: 3100000000000,
      basis: 'used_bytes',
      passes: 2,
      assumedBytesPerSecond: 150000000,
      seconds: 41334,
    });
  });
});

describe('planUpgrade: check order and the remaining rules', () => {
  it('no array → invalid_plan no_array, before anything else', () => {
    const w = world();
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk9', device: '/dev/sda' },
        { rows: w.rows.filter((x) => x.role !== 'parity') },
      ),
    );
    expect(r.refusal).toMatchObject({ status: 400, code: 'invalid_plan', details: { reason: 'no_array' } });
  });

  it('slot disk detached → 409 slot_disk_missing naming the recorded device; two candidates are named', () => {
    const w = world();
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
        { inventory: inventory([w.sda, w.sdc, w.sdd, w.sdz]) },
      ),
    );
    expect(r.refusal).toMatchObject({
      status: 409,
      code: 'slot_disk_missing',
      details: { mountpoint: '/mnt/disk2', recordedDevice: '/dev/sdb' },
    });
    expect(r.refusal?.message).toContain('replace/plan');
    const twin = { ...w.sdb, device: '/dev/sdr' };
    const amb = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
        { inventory: inventory([...w.disks, twin]) },
      ),
    );
    expect(amb.refusal).toMatchObject({
      code: 'slot_disk_missing',
      details: { candidates: ['/dev/sdb', '/dev/sdr'] },
    });
  });

  it('R4 mounted, R5 same disk, R7 registered external, R8 member missing', () => {
    const w = world();
    const mounted = disk('/dev/sdm', { inUse: true, mountpoints: ['/srv/x'] });
    const ext = disk('/dev/sdk', { fsUuid: 'ext-uuid', filesystem: 'ext4' });
    const inv = inventory([...w.disks, mounted, ext]);
    const ask = (device: string, inv2 = inv) =>
      planUpgrade(
        input(
          w,
          { mountpoint: '/mnt/disk2', device },
          {
            inventory: inv2,
            externals: [
              {
                label: 'backup',
                fsUuid: 'ext-uuid',
                wwn: null,
                serial: 'SER-sdk',
                weakIdentity: false,
                sizeBytes: 4 * TB,
              },
            ],
          },
        ),
      ).refusal;
    expect(ask('/dev/sdm')).toMatchObject({ details: { reason: 'disk_mounted', mountpoints: ['/srv/x'] } });
    // 03 §5 revised (issue 32): identity before "in use": the slot's own disk and another member's
    // disk are mounted on a running array, and are named for what they are, mounted or not
    expect(w.sdb.inUse).toBe(true);
    expect(ask('/dev/sdb')).toMatchObject({ details: { reason: 'same_disk' } });
    const unmountedSdb = { ...w.sdb, mountpoints: [], inUse: false };
    expect(ask('/dev/sdb', inventory([w.sda, unmountedSdb, w.sdc, w.sdd, w.sdz]))).toMatchObject({
      details: { reason: 'same_disk' },
    });
    expect(w.sdc.inUse).toBe(true);
    expect(ask('/dev/sdc')).toMatchObject({
      details: { reason: 'already_member', mountpoint: '/mnt/disk1' },
    });
    expect(ask('/dev/sdk')).toMatchObject({ details: { reason: 'registered_external', label: 'backup' } });
    // a registered external disk that is mounted (a backup disk usually is) is named as such too
    const mountedExt = { ...ext, inUse: true, mountpoints: ['/mnt/external/backup'] };
    expect(ask('/dev/sdk', inventory([...w.disks, mounted, mountedExt]))).toMatchObject({
      details: { reason: 'registered_external', label: 'backup' },
    });
    expect(ask('/dev/sdz', inventory([w.sda, w.sdb, w.sdd, w.sdz]))).toMatchObject({
      details: { reason: 'member_missing', mountpoints: ['/mnt/disk1'] },
    });
    expect(ask('/dev/sdz', inventory([w.sda, w.sdb, w.sdd, w.sdz]))?.details).not.toHaveProperty(
      'candidates',
    );
  });

  it('member_missing names the candidates when another member matches several disks (its clone)', () => {
    const w = world();
    // /mnt/disk1 sits behind a USB bridge (weak identity), and a copy of its filesystem is attached
    const sdc = { ...w.sdc, serial: 'USB1', weakIdentity: true };
    const copy = { ...sdc, device: '/dev/sdq', serial: 'USB2', mountpoints: [], inUse: false };
    const rows = [row('data', 1, '/mnt/disk1', sdc), ...w.rows.slice(1)];
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
        { rows, inventory: inventory([w.sda, w.sdb, sdc, w.sdd, w.sdz, copy]) },
      ),
    );
    expect(r.refusal).toMatchObject({
      status: 400,
      code: 'invalid_plan',
      details: {
        reason: 'member_missing',
        mountpoints: ['/mnt/disk1'],
        candidates: ['/dev/sdc', '/dev/sdq'],
      },
    });
    expect(r.refusal?.message).toContain('/dev/sdc, /dev/sdq');
  });

  it('usage_unknown, smaller_than_used, not_larger, not_blank, duplicate_fs_uuid, weak identity — in table order', () => {
    const w = world();
    const old = disk('/dev/sdo', {
      sizeBytes: 3 * TB,
      filesystem: 'ext4',
      label: 'old',
      fsUuid: 'uuid-sdc', // a copy of /mnt/disk1's filesystem, but a different serial: not the same disk
      weakIdentity: true,
      serial: 'USB9',
    });
    const inv = inventory([...w.disks, old]);
    const r = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdo' },
        { inventory: inv, measurements: { usedBytes: 2.99e12, parityFileBytes: null } },
      ),
    );
    expect(r.plan?.warnings.map((x) => x.code)).toEqual([
      'single_parity',
      'replacement_smaller_than_used',
      'replacement_not_larger',
      'replacement_not_blank',
      'duplicate_fs_uuid',
      'replacement_weak_identity',
    ]);
    expect(r.plan?.warnings[3]?.details).toEqual({ filesystem: 'ext4', label: 'old', partitions: [] });
    expect(r.plan?.warnings[4]?.details).toMatchObject({ mountpoint: '/mnt/disk1' });
    expect(r.plan).toMatchObject({ currentFilesystem: 'ext4', currentLabel: 'old', filesystem: 'xfs' });

    // not mounted from its disk → usage unknown, estimate assumes a full disk
    const unmounted = inventory([w.sda, { ...w.sdb, mountpoints: [] }, w.sdc, w.sdd, w.sdz]);
    const u = planUpgrade(
      input(
        w,
        { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
        { inventory: unmounted, measurements: { usedBytes: 123, parityFileBytes: null } },
      ),
    );
    expect(u.plan?.previousUsedBytes).toBeNull();
    expect(u.plan?.warnings.map((x) => x.code)).toEqual(['single_parity', 'usage_unknown']);
    expect(u.plan?.estimate).toMatchObject({
      bytesToCopy: 4 * TB,
      basis: 'disk_size',
      seconds: Math.ceil((2 * 4 * TB) / 150e6),
    });
  });

  it('replacement_smaller_than_used uses floor(size × 0.98)', () => {
    const w = world();
    const at = (used: number) =>
      planUpgrade(
        input(
          w,
          { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
          { measurements: { usedBytes: used, parityFileBytes: null } },
        ),
      ).plan?.warnings.some((x) => x.code === 'replacement_smaller_than_used');
    expect(at(Math.floor(10 * TB * 0.98))).toBe(false);
    expect(at(Math.floor(10 * TB * 0.98) + 1)).toBe(true);
  });

  it('ext4_parity_file_limit: another ext4 parity and the largest data disk after the change > 16 TiB', () => {
    const w = world();
    const p1 = disk('/dev/sdd', { ...w.sdd, sizeBytes: 20 * TB });
    const p2 = disk('/dev/sde', {
      fsUuid: 'uuid-sde',
      sizeBytes: 20 * TB,
      wwn: '0x2',
      mountpoints: ['/mnt/parity2'],
      inUse: true,
    });
    const rows = [
      w.rows[0]!,
      w.rows[1]!,
      row('parity', 1, '/mnt/parity1', p1),
      row('parity', 2, '/mnt/parity2', p2, { filesystem: 'ext4' }),
    ];
    const big = disk('/dev/sdy', { sizeBytes: 18 * TB });
    const small = disk('/dev/sdv', { sizeBytes: 17 * TB });
    const inv = inventory([w.sda, w.sdb, w.sdc, p1, p2, big, small]);
    const warn = (device: string, mountpoint = '/mnt/disk2') =>
      planUpgrade({
        request: { mountpoint, device },
        rows,
        inventory: inv,
        externals: [],
      }).plan?.warnings.filter((x) => x.code === 'ext4_parity_file_limit');
    expect(warn('/dev/sdy')).toEqual([
      {
        code: 'ext4_parity_file_limit',
        message: expect.stringContaining('/mnt/parity2'),
        details: { parityMountpoint: '/mnt/parity2', largestDataBytes: 18 * TB, limitBytes: 16 * TiB },
      },
    ]);
    expect(warn('/dev/sdv')).toEqual([]); // 17 TB < 16 TiB (17.59 TB)
    // upgrading the ext4 parity itself: no warning about itself
    expect(warn('/dev/sdy', '/mnt/parity2')).toEqual([]);
  });
});

describe('nextParityMountpoint (03 §7.2)', () => {
  const mps = (...m: string[]) => m.map((mountpoint) => ({ mountpoint }));
  it('takes the lowest free /mnt/parityN', () => {
    expect(nextParityMountpoint(mps('/mnt/parity1'))).toBe('/mnt/parity2');
    expect(nextParityMountpoint(mps('/mnt/parity1', '/mnt/parity2'))).toBe('/mnt/parity3');
    expect(nextParityMountpoint(mps('/mnt/parity2'))).toBe('/mnt/parity1');
    expect(nextParityMountpoint(mps('/mnt/parity1', '/mnt/parity3', '/mnt/disk2'))).toBe('/mnt/parity2');
    expect(nextParityMountpoint(mps('/mnt/parity01', '/mnt/parityX'))).toBe('/mnt/parity1');
  });
});
