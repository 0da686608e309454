import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { assertLabelFits, externalMountpoint, isValidLabel } from './label.ts';

describe('isValidLabel (07 §1)', () => {
  it.each(['backup', 'B', '0disk', 'a_b-c', 'x'.repeat(64)])('accepts %j', (label) => {
    expect(isValidLabel(label)).toBe(true);
  });
  it.each([
    '',
    '-x',
    '_x',
    'a/b',
    '..',
    '.',
    'a.b',
    'a b',
    'a%20b',
    'x'.repeat(65),
    'bäckup',
    'disk\u0660',
    'backup\n',
  ])('refuses %j', (label) => {
    expect(isValidLabel(label)).toBe(false);
  });
  it('refuses non-strings', () => {
    expect(isValidLabel(42)).toBe(false);
    expect(isValidLabel(null)).toBe(false);
  });
});

describe('assertLabelFits', () => {
  it('allows each filesystem its maximum length', () => {
    expect(() => assertLabelFits('x'.repeat(12), 'xfs')).not.toThrow();
    expect(() => assertLabelFits('x'.repeat(16), 'ext4')).not.toThrow();
    expect(() => assertLabelFits('x'.repeat(64), 'btrfs')).not.toThrow();
    expect(() => assertLabelFits('x'.repeat(11), 'exfat')).not.toThrow();
  });
  it('refuses one character more with 400 label_too_long and the limit', () => {
    for (const [fs, max] of [
      ['xfs', 12],
      ['ext4', 16],
      ['exfat', 11],
    ] as const) {
      const err = (() => {
        try {
          assertLabelFits('x'.repeat(max + 1), fs);
        } catch (e) {
          return e;
        }
      })() as AppError;
      expect(err).toBeInstanceOf(AppError);
      expect(err.status).toBe(400);
      expect(err.code).toBe('label_too_long');
      expect(err.details).toEqual({ filesystem: fs, maxLength: max });
    }
  });
});

it('mounts external disks under /mnt/disks', () => {
  expect(externalMountpoint('backup')).toBe('/mnt/disks/backup');
});
