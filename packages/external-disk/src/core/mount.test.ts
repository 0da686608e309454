import { describe, expect, it } from 'vitest';
import { entry, row, slot } from '../test-support/fixtures.ts';
import { checkMount, mountArgs, powerDownPlan, uuidClash } from './mount.ts';

const MP = '/mnt/disks/backup';
const resolved = (o: Parameters<typeof entry>[0]) => ({
  label: 'backup',
  row: row({ label: 'backup' }),
  disk: entry(o),
});

describe('checkMount', () => {
  it('mounts a disk holding a filesystem by its UUID, nosuid and nodev', () => {
    expect(checkMount({ resolved: resolved({ device: '/dev/sde' }), slots: [], mountpoint: MP })).toEqual({
      alreadyMounted: false,
      fsUuid: 'uuid-sde',
      filesystem: 'ext4',
    });
    expect(mountArgs('uuid-sde', MP)).toEqual(['-o', 'nosuid,nodev', 'UUID=uuid-sde', MP]);
  });
  it('is done already when mounted at its own mountpoint; refused when mounted anywhere else', () => {
    expect(
      checkMount({ resolved: resolved({ device: '/dev/sde', mountpoints: [MP] }), slots: [], mountpoint: MP })
        .alreadyMounted,
    ).toBe(true);
    expect(() =>
      checkMount({
        resolved: resolved({ device: '/dev/sde', mountpoints: ['/media/x'] }),
        slots: [],
        mountpoint: MP,
      }),
    ).toThrow(expect.objectContaining({ code: 'disk_mounted' }));
  });
  it('never a stick, the boot disk or an array member; a disk without a filesystem needs a format', () => {
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code: string }).code;
      }
      return null;
    };
    expect(
      codeOf(() =>
        checkMount({
          resolved: resolved({ device: '/dev/sdf', filesystem: 'vfat', label: 'UNRAID' }),
          slots: [],
          mountpoint: MP,
        }),
      ),
    ).toBe('foreign_stick');
    expect(
      codeOf(() =>
        checkMount({ resolved: resolved({ device: '/dev/sda', boot: true }), slots: [], mountpoint: MP }),
      ),
    ).toBe('boot_device');
    const member = entry({ device: '/dev/sdc' });
    expect(
      codeOf(() =>
        checkMount({
          resolved: { label: 'x', row: null, disk: member },
          slots: [slot('/mnt/disk1', member)],
          mountpoint: MP,
        }),
      ),
    ).toBe('array_member');
    expect(
      codeOf(() =>
        checkMount({
          resolved: resolved({ device: '/dev/sde', filesystem: null, fsUuid: null }),
          slots: [],
          mountpoint: MP,
        }),
      ),
    ).toBe('no_filesystem');
  });
  it('finds a cloned filesystem UUID on two attached disks', () => {
    expect(
      uuidClash('u1', [
        entry({ device: '/dev/sde', fsUuid: 'u1' }),
        entry({ device: '/dev/sdf', fsUuid: 'u1' }),
      ]),
    ).toEqual(['/dev/sde', '/dev/sdf']);
    expect(uuidClash('u1', [entry({ device: '/dev/sde', fsUuid: 'u1' })])).toEqual(['/dev/sde']);
  });
});

describe('powerDownPlan', () => {
  it('a USB disk: delete the SCSI device, then remove the USB device (port power-off)', () => {
    expect(
      powerDownPlan(
        '/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdc',
        'sdc',
      ),
    ).toEqual({
      kind: 'usb',
      scsiDelete: '/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/delete',
      usbRemove: '/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/remove',
    });
    // behind a hub: the device is the deepest port
    expect(
      powerDownPlan(
        '/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1.3/2-1.3:1.0/host7/target7:0:0/7:0:0:0/block/sdd',
        'sdd',
      ),
    ).toMatchObject({ usbRemove: '/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1.3/remove' });
  });
  it('a loop device, SATA or NVMe disk is not powered down, and the answer says why', () => {
    expect(powerDownPlan('/sys/devices/virtual/block/loop3', 'loop3')).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/loop device/),
    });
    expect(
      powerDownPlan('/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sdb', 'sdb'),
    ).toMatchObject({
      kind: 'none',
      reason: expect.stringMatching(/not attached over USB/),
    });
    expect(powerDownPlan(null, 'sdz').kind).toBe('none');
  });
});
