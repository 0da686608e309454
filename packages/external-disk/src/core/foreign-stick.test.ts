import { describe, expect, it } from 'vitest';
import { entry } from '../test-support/fixtures.ts';
import { isUnraidLabel } from '@appliance/common';
import { isForeignStick } from './foreign-stick.ts';
import type { ProbeResult } from './types.ts';

const probe = (device: string, p: Partial<ProbeResult>): ProbeResult => ({
  device,
  failed: false,
  type: null,
  label: null,
  labelFatboot: null,
  uuid: null,
  ...p,
});

const part = (device: string, number: number, filesystem: string | null, label: string | null) => ({
  device,
  number,
  sizeBytes: 1,
  filesystem,
  label,
  fsUuid: null,
});

describe('isUnraidLabel', () => {
  it('compares ASCII case-insensitively after trimming', () => {
    for (const l of ['UNRAID', 'unraid', 'Unraid', 'UNRAID ', ' UNRAID  '])
      expect(isUnraidLabel(l)).toBe(true);
    for (const l of ['UNRAID1', 'UN RAID', '', null]) expect(isUnraidLabel(l)).toBe(false);
  });
});

describe('isForeignStick (07 §5)', () => {
  const sdg = '/dev/sdg';
  it("trusts the inventory's verdict", () => {
    expect(isForeignStick(entry({ device: sdg, foreignStick: true }))).toBe(true);
  });
  it('1: the whole disk is vfat labelled UNRAID', () => {
    expect(isForeignStick(entry({ device: sdg, filesystem: 'vfat', label: 'unraid' }))).toBe(true);
    expect(isForeignStick(entry({ device: sdg, filesystem: 'exfat', label: 'UNRAID' }))).toBe(false);
  });
  it('2 + 3: a partition labelled UNRAID, of any type', () => {
    const d = entry({
      device: sdg,
      filesystem: 'vfat',
      label: 'DATA',
      partitions: [part('/dev/sdg1', 1, 'vfat', 'DATA'), part('/dev/sdg2', 2, 'ext4', 'UNRAID')],
    });
    expect(isForeignStick(d)).toBe(true);
  });
  it('a plain data disk is not a stick', () => {
    expect(isForeignStick(entry({ device: sdg, filesystem: 'xfs', label: 'backup' }))).toBe(false);
  });
  it('fresh probes: whole disk, first partition, boot-sector label, any partition', () => {
    const plain = entry({
      device: sdg,
      filesystem: null,
      label: null,
      partitions: [part('/dev/sdg1', 1, null, null), part('/dev/sdg2', 2, null, null)],
    });
    expect(isForeignStick(plain)).toBe(false);
    expect(isForeignStick(plain, [probe(sdg, { type: 'vfat', label: 'UNRAID' })])).toBe(true);
    expect(isForeignStick(plain, [probe('/dev/sdg1', { type: 'vfat', labelFatboot: 'UNRAID     ' })])).toBe(
      true,
    );
    expect(isForeignStick(plain, [probe('/dev/sdg2', { type: 'ext4', label: 'Unraid' })])).toBe(true);
    expect(isForeignStick(plain, [probe(sdg, { type: 'ext4', label: 'UNRAID' })])).toBe(false);
    expect(isForeignStick(plain, [probe('/dev/sdg2', { type: 'ext4', labelFatboot: 'UNRAID' })])).toBe(false);
    expect(isForeignStick(plain, [probe('/dev/other', { type: 'vfat', label: 'UNRAID' })])).toBe(false);
  });
});
