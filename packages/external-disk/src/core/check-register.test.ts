import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { entry, row, slot } from '../test-support/fixtures.ts';
import { checkRegister, type RegisterInput } from './check-register.ts';

const sde = entry({ device: '/dev/sde', label: 'backup', wwn: '0x50014ee2b1' });
const input: RegisterInput = { device: '/dev/sde', label: 'Backup', backupDestination: true };

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('checkRegister (07 §4 checks 4–8)', () => {
  it('returns the row to insert with the identity and filesystem of the disk', () => {
    expect(checkRegister(input, [sde], [], [])).toEqual({
      label: 'Backup',
      device: '/dev/sde',
      filesystem: 'ext4',
      fsUuid: 'uuid-sde',
      wwn: '0x50014ee2b1',
      serial: 'SER-sde',
      byIdName: 'ata-WDC_WD40EFRX_SER-sde',
      weakIdentity: false,
      sizeBytes: 4_000_000_000_000,
      backupDestination: true,
    });
  });
  it('4: a partition or an unlisted device → 400 unmanaged_device', () => {
    expect(refusal(() => checkRegister({ ...input, device: '/dev/sde1' }, [sde], [], [])).code).toBe(
      'unmanaged_device',
    );
    const failed = entry({ device: '/dev/sde', probeFailed: true });
    expect(refusal(() => checkRegister(input, [failed], [], [])).status).toBe(400);
  });
  it('5 before 6: a stick → 409 foreign_stick', () => {
    const stick = entry({ device: '/dev/sde', foreignStick: true, boot: true });
    expect(refusal(() => checkRegister(input, [stick], [], [])).code).toBe('foreign_stick');
  });
  it('6: the boot disk → 409 boot_device', () => {
    const boot = entry({ device: '/dev/sde', boot: true });
    expect(refusal(() => checkRegister(input, [boot], [], [])).code).toBe('boot_device');
  });
  it('7: an array member → 409 array_member with its mountpoint', () => {
    const err = refusal(() => checkRegister(input, [sde], [], [slot('/mnt/parity1', sde)]));
    expect(err.code).toBe('array_member');
    expect(err.details?.['mountpoint']).toBe('/mnt/parity1');
  });
  it('8: the label is taken case-insensitively, or the disk is registered → 409 external_disk_exists', () => {
    const taken = refusal(() => checkRegister(input, [sde], [row({ label: 'BACKUP', serial: 'OTHER' })], []));
    expect(taken.code).toBe('external_disk_exists');
    expect(taken.details).toEqual({ label: 'BACKUP' });
    const same = refusal(() => checkRegister(input, [sde], [row({ label: 'old', wwn: '0x50014ee2b1' })], []));
    expect(same.details).toEqual({ label: 'old' });
  });
});
