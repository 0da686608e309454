import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { entry, row, slot } from '../test-support/fixtures.ts';
import { checkFormat, type FormatCheckInput } from './check-format.ts';

const sde = entry({ device: '/dev/sde', label: 'backup' });
const base: FormatCheckInput = {
  resolved: { label: 'backup', row: null, disk: sde },
  slots: [],
  filesystem: 'xfs',
  confirmation: 'ERASE /dev/sde',
};

const refusal = (input: Partial<FormatCheckInput> & { disk?: typeof sde }): AppError => {
  const { disk, ...rest } = input;
  try {
    checkFormat({ ...base, ...rest, ...(disk ? { resolved: { ...base.resolved, disk } } : {}) });
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('checkFormat (07 §6.3 checks 7–13)', () => {
  it('approves with the exact phrase', () => {
    const ok = checkFormat(base);
    expect(ok.confirmed).toBe('ERASE /dev/sde');
    expect(ok.disk).toBe(sde);
  });

  it('7: a stick is refused before the confirmation is looked at, whatever it says', () => {
    const stick = entry({ device: '/dev/sdg', filesystem: 'vfat', label: 'UNRAID', foreignStick: true });
    for (const confirmation of ['ERASE /dev/sdg', 'nope', null, undefined]) {
      const err = refusal({ disk: stick, confirmation });
      expect(err.code).toBe('foreign_stick');
      expect(err.status).toBe(409);
      expect(err.message).toBe(
        '/dev/sdg is an Unraid USB flash drive (a FAT filesystem labelled UNRAID); it is never formatted or written. Unplug it or choose another disk.',
      );
      expect(err.details).toEqual({ device: '/dev/sdg' });
    }
  });

  it('7 wins over every later check (boot, member, mounted, label length)', () => {
    const all = entry({
      device: '/dev/sdg',
      foreignStick: true,
      boot: true,
      mountpoints: ['/x'],
      inUse: true,
    });
    expect(
      refusal({
        disk: all,
        slots: [slot('/mnt/disk1', all)],
        resolved: { label: 'x'.repeat(40), row: null, disk: all },
      }).code,
    ).toBe('foreign_stick');
  });

  it('7: fresh probes that show a stick refuse it too', () => {
    const err = refusal({
      probes: [
        { device: '/dev/sde', failed: false, type: 'vfat', label: 'unraid', labelFatboot: null, uuid: null },
      ],
    });
    expect(err.code).toBe('foreign_stick');
  });

  it('8: the boot disk → 409 boot_device, saying the system disk is never formatted', () => {
    const err = refusal({ disk: entry({ device: '/dev/sde', boot: true }) });
    expect(err.code).toBe('boot_device');
    expect(err.message).toContain('system disk is never formatted');
  });

  it('9: an array member → 409 array_member with its mountpoint', () => {
    const err = refusal({ slots: [slot('/mnt/disk3', sde)] });
    expect(err.code).toBe('array_member');
    expect(err.details?.['mountpoint']).toBe('/mnt/disk3');
  });

  it('10: a failed probe → 400 unmanaged_device', () => {
    expect(refusal({ disk: entry({ device: '/dev/sde', probeFailed: true }) }).code).toBe('unmanaged_device');
    const err = refusal({
      probes: [
        { device: '/dev/sde1', failed: true, type: null, label: null, labelFatboot: null, uuid: null },
      ],
    });
    expect(err.status).toBe(400);
    expect(err.message).toContain('cable');
  });

  it('11: mounted, swap or held → 409 disk_mounted with mountpoints and holders', () => {
    const err = refusal({
      disk: entry({ device: '/dev/sde', mountpoints: ['/mnt/disks/backup'], inUse: true }),
    });
    expect(err.code).toBe('disk_mounted');
    expect(err.details).toMatchObject({ mountpoints: ['/mnt/disks/backup'], holders: [] });
    expect(err.message).toContain('unmount');
    expect(refusal({ disk: entry({ device: '/dev/sde', mountpoints: ['[swap]'], inUse: true }) }).code).toBe(
      'disk_mounted',
    );
    expect(refusal({ disk: entry({ device: '/dev/sde', holders: ['dm-0'], inUse: true }) }).code).toBe(
      'disk_mounted',
    );
  });

  it('12: label too long for the filesystem, before the confirmation', () => {
    const err = refusal({ resolved: { label: 'thirteenchars', row: null, disk: sde }, confirmation: null });
    expect(err.code).toBe('label_too_long');
    expect(
      checkFormat({ ...base, resolved: { label: 'thirteenchars', row: null, disk: sde }, filesystem: 'ext4' })
        .filesystem,
    ).toBe('ext4');
  });

  it.each([
    undefined,
    null,
    '',
    'yes',
    'erase /dev/sde',
    'ERASE /dev/sde ',
    ' ERASE /dev/sde',
    'ERASE /dev/sda',
  ])('13: confirmation %j → 409 confirmation_required with the exact phrase', (confirmation) => {
    const err = refusal({ confirmation });
    expect(err.code).toBe('confirmation_required');
    expect(err.status).toBe(409);
    expect(err.details).toEqual({ expected: 'ERASE /dev/sde' });
    expect(err.message).toContain('ERASE /dev/sde');
  });

  it('a registered disk is checked the same way', () => {
    const r = row({ label: 'backup', serial: sde.serial });
    expect(checkFormat({ ...base, resolved: { label: 'backup', row: r, disk: sde } }).row).toBe(r);
  });
});
