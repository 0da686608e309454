import { describe, expect, it } from 'vitest';
import {
  type ArrayDiskRow,
  arrayMismatchBlocker,
  databaseBlocker,
  otherInstallationBlocker,
} from './blockers.ts';

const disk = (role: string, roleIndex: number, over: Partial<ArrayDiskRow> = {}): ArrayDiskRow => ({
  role,
  roleIndex,
  device: '/dev/sdb',
  fsUuid: `uuid-${role}${roleIndex}`,
  wwn: null,
  serial: null,
  byIdName: null,
  weakIdentity: false,
  sizeBytes: 1,
  mountpoint: `/mnt/${role}${roleIndex}`,
  removalState: null,
  ...over,
});
const v = (id: string, order: number) => ({ id, order });

describe('blockers', () => {
  it('archive_array_mismatch lists differences in slot order with JSON-quoted values', () => {
    const live = [
      disk('data', 2),
      disk('data', 1, { wwn: '0x1', device: '/dev/sdz', sizeBytes: 9 }),
      disk('parity', 1),
    ];
    const archive = [
      disk('data', 1, { wwn: '0x2', removalState: 'evacuating' }),
      disk('parity', 1),
      disk('cache', 1),
    ];
    expect(arrayMismatchBlocker(live, archive)?.message).toBe(
      "The archive's array differs from this installation's array: " +
        'data disk 1 differs in WWN: live "0x1", archive "0x2"; data disk 1 differs in removal state: live "", archive "evacuating"; ' +
        'the live array has data disk 2 (filesystem uuid-data2), which the archive does not; ' +
        'the archive has cache disk 1 (filesystem uuid-cache1), which the live array does not. ' +
        'Only disk operations change the array; export a new archive.',
    );
    expect(
      arrayMismatchBlocker([disk('data', 1)], [disk('data', 1, { device: '/dev/x', sizeBytes: 5 })]),
    ).toBeNull();
  });

  it('archive_other_installation when the check row is missing or differs', () => {
    expect(otherInstallationBlocker(null, 'a')?.code).toBe('archive_other_installation');
    expect(otherInstallationBlocker('b', 'a')?.message).toMatch(/only be restored onto a fresh install/);
    expect(otherInstallationBlocker('a', 'a')).toBeNull();
  });

  it('runs top to bottom and stops at the first refusal', () => {
    const base = {
      archiveVersion: v('0001_b', 2),
      liveVersion: v('0001_b', 2),
      appVersion: '1.5.0',
      fresh: false,
      upgradeError: null,
      archiveKeyCheck: 'x',
      liveKeyCheck: 'y',
      archiveDisks: [],
      liveDisks: [disk('data', 1)],
    };
    const newer = databaseBlocker({ ...base, relation: 'newer', archiveVersion: v('0002_c', 3) });
    expect(newer?.code).toBe('archive_newer_version');
    expect(newer?.message).toContain('0002_c');
    expect(newer?.message).toContain('0001_b');
    expect(newer?.message).toContain('1.5.0');
    const older = databaseBlocker({ ...base, relation: 'older', archiveVersion: v('0000_a', 1) });
    expect(older?.code).toBe('incompatible_archive');
    expect(older?.message).toMatch(/fresh install/);
    expect(databaseBlocker({ ...base, relation: 'equal' })?.code).toBe('archive_other_installation');
    expect(databaseBlocker({ ...base, relation: 'equal', archiveKeyCheck: 'y' })?.code).toBe(
      'archive_array_mismatch',
    );
    // Fresh: only the version checks apply.
    expect(databaseBlocker({ ...base, relation: 'equal', fresh: true, liveDisks: [] })).toBeNull();
    expect(
      databaseBlocker({ ...base, relation: 'older', fresh: true, upgradeError: 'boom' })?.message,
    ).toContain('boom');
    expect(databaseBlocker({ ...base, relation: 'older', fresh: true })).toBeNull();
  });
});
