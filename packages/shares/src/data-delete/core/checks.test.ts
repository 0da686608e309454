import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import {
  type BranchDiskObservation,
  checkBranchDisks,
  checkDataDeleteConfirmation,
  checkDataDeleteTarget,
  judgeBranchDisk,
} from './checks.ts';
import type { DataDeleteArray } from './model.ts';

const refusal = (fn: () => unknown): { status: number; code: string; details: unknown } => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, code: err.code, details: err.details };
    throw err;
  }
  throw new Error('expected a refusal');
};

const ARRAY: DataDeleteArray = { migrationPending: false, slots: [] };

describe('checkDataDeleteConfirmation (step 8)', () => {
  it('accepts the exact name only', () => {
    expect(() => checkDataDeleteConfirmation('media', 'media')).not.toThrow();
    for (const wrong of ['Media', 'media ', ' media', '', 'medi', 'media\n', null, undefined]) {
      expect(refusal(() => checkDataDeleteConfirmation('media', wrong))).toEqual({
        status: 409,
        code: 'confirmation_required',
        details: { expected: 'media' },
      });
    }
  });
});

describe('checkDataDeleteTarget (steps 9–11, in that order)', () => {
  it('unknown share → 404 before the migration and array checks', () => {
    expect(refusal(() => checkDataDeleteTarget('nope', null, null)).code).toBe('share_not_found');
    expect(
      refusal(() => checkDataDeleteTarget('nope', null, { ...ARRAY, migrationPending: true })).code,
    ).toBe('share_not_found');
  });
  it('names are looked up exactly', () => {
    expect(
      refusal(() => checkDataDeleteTarget('Media', { name: 'media', cacheMode: 'array-only' }, ARRAY)).code,
    ).toBe('share_not_found');
  });
  it('pending migration → 409 migration_in_progress; no array → 409 no_array', () => {
    const share = { name: 'media', cacheMode: 'array-only' } as const;
    expect(
      refusal(() => checkDataDeleteTarget('media', share, { ...ARRAY, migrationPending: true })),
    ).toMatchObject({
      status: 409,
      code: 'migration_in_progress',
    });
    expect(refusal(() => checkDataDeleteTarget('media', share, null))).toMatchObject({
      status: 409,
      code: 'no_array',
    });
    expect(checkDataDeleteTarget('media', share, ARRAY)).toEqual({ share, array: ARRAY });
  });
});

describe('judgeBranchDisk (step 13)', () => {
  const ok: BranchDiskObservation = {
    disk: '/mnt/disk1',
    path: '/mnt/disk1/media',
    mounted: true,
    mountedUuid: 'ABC-1',
    expectedUuid: 'abc-1',
    branch: 'directory',
  };
  it('passes a mounted disk with the slot filesystem (UUIDs compared ignoring case), present or absent branch', () => {
    expect(judgeBranchDisk(ok)).toBeNull();
    expect(judgeBranchDisk({ ...ok, branch: 'absent' })).toBeNull();
    expect(judgeBranchDisk({ ...ok, mountedUuid: null })).toBeNull();
  });
  it('not mounted, another filesystem, a disk that does not answer', () => {
    expect(judgeBranchDisk({ ...ok, mounted: false })?.details).toEqual({
      disk: '/mnt/disk1',
      reason: 'not_mounted',
    });
    expect(judgeBranchDisk({ ...ok, mountedUuid: 'other' })?.details).toEqual({
      disk: '/mnt/disk1',
      reason: 'wrong_filesystem',
    });
    expect(judgeBranchDisk({ ...ok, branch: 'absent', error: 'EIO' })?.details).toEqual({
      disk: '/mnt/disk1',
      reason: 'not_mounted',
      error: 'EIO',
    });
  });
  it('a branch that is a link, not a directory, or another filesystem → 409 share_branch_not_directory', () => {
    for (const reason of ['symlink', 'not_directory', 'other_filesystem'] as const) {
      const err = judgeBranchDisk({ ...ok, branch: reason });
      expect([err?.status, err?.code, err?.details]).toEqual([
        409,
        'share_branch_not_directory',
        { disk: '/mnt/disk1', path: '/mnt/disk1/media', reason },
      ]);
    }
  });
  it('checkBranchDisks answers the first refusal in branch order', () => {
    const second = { ...ok, disk: '/mnt/disk2', path: '/mnt/disk2/media', branch: 'symlink' as const };
    const third = { ...ok, disk: '/mnt/disk3', mounted: false };
    expect(refusal(() => checkBranchDisks([ok, second, third])).code).toBe('share_branch_not_directory');
    expect(() => checkBranchDisks([ok, ok])).not.toThrow();
  });
});
