import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { entry, row } from '../test-support/fixtures.ts';
import { resolveLabel } from './resolve.ts';

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('resolveLabel (07 §2.3)', () => {
  const sdb = entry({ device: '/dev/sdb', wwn: '0x5000c500a1b2c3d4', label: 'backup' });
  const sdc = entry({ device: '/dev/sdc', label: 'photos' });

  it('resolves a registered row by identity, never by its stored device', () => {
    const r = row({ label: 'backup', device: '/dev/sdz', wwn: '0x5000c500a1b2c3d4' });
    const got = resolveLabel('backup', [sdc, sdb], [r]);
    expect(got.row).toBe(r);
    expect(got.disk.device).toBe('/dev/sdb');
  });

  it('is case-sensitive', () => {
    const err = refusal(() => resolveLabel('Photos', [sdc], []));
    expect(err.status).toBe(404);
    expect(err.details).toEqual({ label: 'Photos', registered: false });
  });

  it('a registered row whose disk is absent → 404 registered: true', () => {
    const r = row({ label: 'backup', serial: 'GONE' });
    const err = refusal(() => resolveLabel('backup', [sdb, sdc], [r]));
    expect(err.code).toBe('external_disk_not_found');
    expect(err.details).toEqual({ label: 'backup', registered: true });
  });

  it('a weak row without fs UUID (failed format) matches by device and size', () => {
    const loop = entry({
      device: '/dev/loop4',
      weakIdentity: true,
      serial: null,
      wwn: null,
      byIdName: null,
      sizeBytes: 1024,
      fsUuid: null,
      filesystem: null,
    });
    const r = row({ label: 'usb', device: '/dev/loop4', weakIdentity: true, fsUuid: null, sizeBytes: 1024 });
    expect(resolveLabel('usb', [loop], [r]).disk).toBe(loop);
    const wrongSize = row({ ...r, sizeBytes: 2048 });
    expect(refusal(() => resolveLabel('usb', [loop], [wrongSize])).status).toBe(404);
  });

  it('a weak row matches by fs UUID and size', () => {
    const loop = entry({
      device: '/dev/loop5',
      weakIdentity: true,
      serial: null,
      byIdName: null,
      sizeBytes: 1024,
      fsUuid: 'u-1',
    });
    const r = row({ label: 'usb', device: '/dev/loop2', weakIdentity: true, fsUuid: 'u-1', sizeBytes: 1024 });
    expect(resolveLabel('usb', [loop], [r]).disk).toBe(loop);
  });

  it('two disks for one row → 409 external_disk_ambiguous', () => {
    const a = entry({ device: '/dev/loop1', weakIdentity: true, serial: null, fsUuid: 'dup', sizeBytes: 5 });
    const b = entry({ device: '/dev/loop2', weakIdentity: true, serial: null, fsUuid: 'dup', sizeBytes: 5 });
    const r = row({ label: 'x', weakIdentity: true, fsUuid: 'dup', sizeBytes: 5 });
    const err = refusal(() => resolveLabel('x', [a, b], [r]));
    expect(err.code).toBe('external_disk_ambiguous');
    expect(err.status).toBe(409);
  });

  it('an unregistered candidate by its filesystem label', () => {
    const got = resolveLabel('photos', [sdb, sdc], []);
    expect(got.row).toBeNull();
    expect(got.disk).toBe(sdc);
  });

  it('two candidates with one label → 409 with details.devices', () => {
    const sdd = entry({ device: '/dev/sdd', label: 'photos' });
    const err = refusal(() => resolveLabel('photos', [sdc, sdd], []));
    expect(err.code).toBe('external_disk_ambiguous');
    expect(err.details?.['devices']).toEqual(['/dev/sdc', '/dev/sdd']);
  });

  it('the boot disk is never a candidate', () => {
    const boot = entry({ device: '/dev/sda', label: 'root', boot: true });
    expect(refusal(() => resolveLabel('root', [boot], [])).code).toBe('external_disk_not_found');
  });

  it('a registered row that resolves to the boot disk is returned (refused later as boot_device)', () => {
    const boot = entry({ device: '/dev/sda', label: 'root', boot: true, serial: 'BOOT' });
    expect(resolveLabel('x', [boot], [row({ label: 'x', serial: 'BOOT' })]).disk).toBe(boot);
  });

  it('sticks and array members are resolved so they get their own refusal', () => {
    const stick = entry({ device: '/dev/sdg', filesystem: 'vfat', label: 'UNRAID', foreignStick: true });
    expect(resolveLabel('UNRAID', [stick], []).disk).toBe(stick);
  });

  it('a disk registered under another label is not a candidate', () => {
    const r = row({ label: 'other', serial: sdc.serial });
    expect(refusal(() => resolveLabel('photos', [sdc], [r])).code).toBe('external_disk_not_found');
  });

  it('a label registered in another case is not a candidate', () => {
    const r = row({ label: 'PHOTOS', serial: 'ELSEWHERE' });
    expect(refusal(() => resolveLabel('photos', [sdc], [r])).details).toEqual({
      label: 'photos',
      registered: false,
    });
  });
});
