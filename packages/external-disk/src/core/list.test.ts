import { describe, expect, it } from 'vitest';
import { entry, inventory, row, slot } from '../test-support/fixtures.ts';
import { listExternalDisks } from './list.ts';

describe('listExternalDisks (07 §3)', () => {
  const boot = entry({ device: '/dev/sda', boot: true, label: 'rootfs', serial: 'BOOT' });
  const member = entry({ device: '/dev/sdb', label: 'disk1', filesystem: 'xfs' });
  const stick = entry({ device: '/dev/sdc', filesystem: 'vfat', label: 'UNRAID', foreignStick: true });
  const backup = entry({
    device: '/dev/sdd',
    label: 'backup',
    mountpoints: ['/mnt/disks/backup'],
    inUse: true,
    partitions: [
      { device: '/dev/sdd1', number: 1, sizeBytes: 10, filesystem: 'ext4', label: 'backup', fsUuid: 'p' },
    ],
  });
  const blank = entry({ device: '/dev/sde', label: null, filesystem: null, fsUuid: null });
  const badLabel = entry({ device: '/dev/sdf', label: 'My Photos' });
  const archive = entry({ device: '/dev/sdh', label: 'archive', serial: 'ARCH' });
  const alpha = entry({ device: '/dev/sdi', label: 'alpha' });
  const alpha2 = entry({ device: '/dev/sdj', label: 'alpha' });

  it('lists rows by label, then candidates by label then device; never boot, sticks, members', () => {
    const rows = [
      row({
        id: 2,
        label: 'zeta',
        serial: 'ARCH',
        backupDestination: true,
        formattedAt: '2026-01-02T00:00:00.000Z',
      }),
      row({ id: 3, label: 'gone', serial: 'MISSING', filesystem: 'xfs', fsUuid: 'old-uuid', sizeBytes: 99 }),
      row({ id: 4, label: 'was-boot', serial: 'BOOT' }),
    ];
    const got = listExternalDisks(
      inventory([boot, member, stick, backup, blank, badLabel, archive, alpha2, alpha]),
      rows,
      [slot('/mnt/disk1', member)],
    );
    expect(got.map((d) => [d.label, d.device])).toEqual([
      ['gone', null],
      ['was-boot', null],
      ['zeta', '/dev/sdh'],
      ['alpha', '/dev/sdi'],
      ['alpha', '/dev/sdj'],
      ['backup', '/dev/sdd'],
    ]);
    const [gone, wasBoot, zeta, , , bk] = got;
    expect(gone).toMatchObject({
      registered: true,
      attached: false,
      filesystem: 'xfs',
      fsUuid: 'old-uuid',
      sizeBytes: 99,
      mounted: false,
    });
    expect(wasBoot).toMatchObject({ registered: true, attached: false, device: null, boot: false });
    expect(zeta).toMatchObject({
      registered: true,
      attached: true,
      backupDestination: true,
      formattedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(bk).toEqual({
      label: 'backup',
      registered: false,
      attached: true,
      device: '/dev/sdd',
      mountpoint: '/mnt/disks/backup',
      mounted: true,
      boot: false,
      filesystem: 'ext4',
      fsLabel: 'backup',
      fsUuid: 'uuid-sdd',
      partitions: [{ device: '/dev/sdd1', number: 1, sizeBytes: 10, filesystem: 'ext4', label: 'backup' }],
      sizeBytes: 4_000_000_000_000,
      model: 'WDC WD40EFRX',
      serial: 'SER-sdd',
      wwn: null,
      weakIdentity: false,
      backupDestination: false,
      formattedAt: null,
    });
  });

  it('hides a candidate whose label is registered in another case', () => {
    const got = listExternalDisks(inventory([backup]), [row({ label: 'BACKUP', serial: 'X' })], []);
    expect(got.map((d) => d.device)).toEqual([null]);
  });

  it('a swap-only disk is not reported as mounted', () => {
    const swap = entry({ device: '/dev/sdk', label: 'swapdisk', mountpoints: ['[swap]'], inUse: true });
    expect(listExternalDisks(inventory([swap]), [], [])[0]?.mounted).toBe(false);
  });
});
