import { describe, expect, it } from 'vitest';
import { findDisk, findDiskEntry, identityOf, matchesIdentity, matchesRecordedIdentity } from './match.ts';
import type { DiskInventoryEntry, StoredIdentity } from './model.ts';

function disk(over: Partial<DiskInventoryEntry>): DiskInventoryEntry {
  return {
    device: '/dev/sda',
    sizeBytes: 4_000_000_000_000,
    model: null,
    wwn: null,
    serial: null,
    byIdName: null,
    weakIdentity: true,
    filesystem: null,
    label: null,
    fsUuid: null,
    fsDevice: null,
    partitions: [],
    mountpoints: [],
    holders: [],
    inUse: false,
    probeFailed: false,
    boot: false,
    foreignStick: false,
    ...over,
  };
}

const stored = (over: Partial<StoredIdentity>): StoredIdentity => ({
  wwn: null,
  serial: null,
  weakIdentity: true,
  fsUuid: null,
  sizeBytes: null,
  ...over,
});

describe('matchesIdentity (03 §2.3)', () => {
  it('case 1: both have a WWN → equal WWN decides, even when serials and fs UUIDs agree', () => {
    const a = stored({ wwn: '0x5000c500a1b2c3d4', serial: 'S1', weakIdentity: false, fsUuid: 'u1' });
    expect(
      matchesIdentity(a, disk({ wwn: '0x5000c500a1b2c3d4', serial: 'OTHER', weakIdentity: false })),
    ).toBe(true);
    expect(
      matchesIdentity(
        a,
        disk({ wwn: '0x5000c500ffffffff', serial: 'S1', weakIdentity: false, fsUuid: 'u1' }),
      ),
    ).toBe(false);
  });

  it('case 2: no common WWN, both strong with a serial → equal serial decides', () => {
    const a = stored({ wwn: '0x5000c500a1b2c3d4', serial: 'ZR1234', weakIdentity: false, fsUuid: 'u1' });
    expect(matchesIdentity(a, disk({ serial: 'ZR1234', weakIdentity: false }))).toBe(true);
    expect(matchesIdentity(a, disk({ serial: 'ZR9999', weakIdentity: false, fsUuid: 'u1' }))).toBe(false);
  });

  it('a weak disk serial is never matched: falls to fs UUID and size', () => {
    const a = stored({ serial: 'USB123', weakIdentity: true, fsUuid: 'u1', sizeBytes: 100 });
    // same serial, different fs UUID → not the same disk
    expect(
      matchesIdentity(a, disk({ serial: 'USB123', weakIdentity: true, fsUuid: 'u2', sizeBytes: 100 })),
    ).toBe(false);
    // different serial but same fs UUID and size → same disk (serial of a weak disk is not compared)
    expect(
      matchesIdentity(a, disk({ serial: 'USB999', weakIdentity: true, fsUuid: 'u1', sizeBytes: 100 })),
    ).toBe(true);
    // strong stored row vs weak entry with the same serial: still case 3
    const strong = stored({ serial: 'S1', weakIdentity: false, fsUuid: 'u1', sizeBytes: 100 });
    expect(
      matchesIdentity(strong, disk({ serial: 'S1', weakIdentity: true, fsUuid: 'u9', sizeBytes: 100 })),
    ).toBe(false);
  });

  it('case 3: fs UUID equal and sizes equal when both are known', () => {
    const a = stored({ fsUuid: 'abcd', sizeBytes: 2147483648 });
    expect(matchesIdentity(a, disk({ fsUuid: 'abcd', sizeBytes: 2147483648 }))).toBe(true);
    expect(matchesIdentity(a, disk({ fsUuid: 'abcd', sizeBytes: 3221225472 }))).toBe(false);
    expect(
      matchesIdentity(stored({ fsUuid: 'abcd', sizeBytes: null }), disk({ fsUuid: 'abcd', sizeBytes: 1 })),
    ).toBe(true);
    expect(matchesIdentity(a, disk({ fsUuid: null, sizeBytes: 2147483648 }))).toBe(false);
    expect(matchesIdentity(stored({ fsUuid: null }), disk({ fsUuid: null }))).toBe(false);
  });

  it('empty strings count as absent', () => {
    expect(matchesIdentity(stored({ wwn: '', fsUuid: '' }), disk({ wwn: '', fsUuid: '' }))).toBe(false);
  });
});

describe('matchesRecordedIdentity (01 §4.9 step 2, bare metal)', () => {
  it('a stored strong identity is matched only by the same strong identity, never by its filesystem', () => {
    const withWwn = stored({ wwn: '0x5000c500a1b2c3d4', weakIdentity: false, fsUuid: 'u1', sizeBytes: 100 });
    const weakCopy = disk({ fsUuid: 'u1', sizeBytes: 100 });
    // the product-wide rule (03 §2.3) matches the filesystem; the bare-metal rule does not
    expect(matchesIdentity(withWwn, weakCopy)).toBe(true);
    expect(matchesRecordedIdentity(withWwn, weakCopy)).toBe(false);
    expect(
      matchesRecordedIdentity(
        withWwn,
        disk({ wwn: '0x5000c500a1b2c3d4', weakIdentity: false, fsUuid: 'u9' }),
      ),
    ).toBe(true);
    const withSerial = stored({ serial: 'ZR1', weakIdentity: false, fsUuid: 'u1', sizeBytes: 100 });
    expect(matchesRecordedIdentity(withSerial, weakCopy)).toBe(false);
    expect(matchesRecordedIdentity(withSerial, disk({ serial: 'ZR1', weakIdentity: false }))).toBe(true);
    // a strong disk without a common strong identity is not the row either
    expect(matchesRecordedIdentity(withWwn, disk({ serial: 'S', weakIdentity: false, fsUuid: 'u1' }))).toBe(
      false,
    );
  });

  it('a weak row never claims a strong disk; two weak sides match by filesystem and size', () => {
    const weak = stored({ fsUuid: 'u1', sizeBytes: 100 });
    expect(matchesRecordedIdentity(weak, disk({ wwn: '0xaa', weakIdentity: false, fsUuid: 'u1' }))).toBe(
      false,
    );
    expect(matchesRecordedIdentity(weak, disk({ fsUuid: 'u1', sizeBytes: 100 }))).toBe(true);
    expect(matchesRecordedIdentity(weak, disk({ fsUuid: 'u1', sizeBytes: 200 }))).toBe(false);
    expect(
      matchesRecordedIdentity(
        stored({ serial: 'USB1', fsUuid: 'u1' }),
        disk({ serial: 'USB2', weakIdentity: true, fsUuid: 'u1' }),
      ),
    ).toBe(true);
  });
});

describe('findDisk', () => {
  const sda = disk({ device: '/dev/sda', wwn: 'w-a', weakIdentity: false });
  const sdb = disk({ device: '/dev/sdb', serial: 'SB', weakIdentity: false, fsUuid: 'u-b' });
  const loop1 = disk({ device: '/dev/loop1', fsUuid: 'u-l', sizeBytes: 10, lab: true });
  const loop2 = disk({ device: '/dev/loop2', fsUuid: 'u-l', sizeBytes: 10, lab: true });

  it('returns the single matching entry, never trusting a stored device path', () => {
    const m = findDisk(stored({ wwn: 'w-a', weakIdentity: false }), {
      labMode: false,
      bootResolved: true,
      disks: [sdb, sda],
    });
    expect(m).toEqual({ status: 'found', disk: sda });
    expect(findDiskEntry(stored({ serial: 'SB', weakIdentity: false }), [sda, sdb])).toBe(sdb);
  });

  it('returns missing when nothing matches', () => {
    expect(findDisk(stored({ wwn: 'w-z', weakIdentity: false }), [sda, sdb])).toEqual({ status: 'missing' });
    expect(findDiskEntry(stored({ wwn: 'w-z' }), [sda])).toBeNull();
  });

  it('two matching entries are ambiguous and name both candidates', () => {
    const m = findDisk(stored({ fsUuid: 'u-l', sizeBytes: 10 }), [loop1, sda, loop2]);
    expect(m.status).toBe('ambiguous');
    if (m.status !== 'ambiguous') throw new Error('unreachable');
    expect(m.candidates.map((d) => d.device)).toEqual(['/dev/loop1', '/dev/loop2']);
    expect(findDiskEntry(stored({ fsUuid: 'u-l', sizeBytes: 10 }), [loop1, loop2])).toBeNull();
  });

  it('identityOf round-trips an entry through the rule', () => {
    expect(findDiskEntry(identityOf(loop1), [sda, loop1])).toBe(loop1);
    expect(identityOf(sdb)).toEqual({
      wwn: null,
      serial: 'SB',
      weakIdentity: false,
      fsUuid: 'u-b',
      sizeBytes: 4e12,
    });
  });
});
