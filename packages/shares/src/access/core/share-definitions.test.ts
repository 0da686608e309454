import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { type BranchDisk, hasCacheDisk, shareBranches } from '../branches.ts';
import { planShareCreate, planShareUpdate, type ShareEnvironment } from './share-definitions.ts';

const NOW = '2026-11-22T10:00:00.000Z';
const env = (over: Partial<ShareEnvironment> = {}): ShareEnvironment => ({
  arrayExists: true,
  migrationPending: false,
  hasCache: false,
  nameTakenBy: (n) => (n.toLowerCase() === 'media' ? 'media' : null),
  ...over,
});
const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    // a refusal names no status (the server's error map gives these codes 409)
    if (err instanceof Refusal) return err.code;
    throw err;
  }
  return 'ok';
};

describe('planShareCreate (08 §6)', () => {
  it('defaults to array-only without a cache and cache-then-move with one', () => {
    expect(planShareCreate({ name: 'tv' }, env(), NOW)).toEqual({
      name: 'tv',
      cacheMode: 'array-only',
      createPolicy: 'mfs',
      smb: { enabled: true, browseable: true },
      createdAt: NOW,
      updatedAt: NOW,
    });
    expect(
      planShareCreate({ name: 'tv', smb: { browseable: false } }, env({ hasCache: true }), NOW),
    ).toMatchObject({
      cacheMode: 'cache-then-move',
      smb: { enabled: true, browseable: false },
    });
  });

  it('checks migration, array, name, then cache, in that order', () => {
    const all = env({ migrationPending: true, arrayExists: false });
    expect(codeOf(() => planShareCreate({ name: 'MEDIA', cacheMode: 'cache-only' }, all, NOW))).toBe(
      'migration_in_progress',
    );
    expect(
      codeOf(() =>
        planShareCreate({ name: 'MEDIA', cacheMode: 'cache-only' }, env({ arrayExists: false }), NOW),
      ),
    ).toBe('no_array');
    expect(codeOf(() => planShareCreate({ name: 'MEDIA', cacheMode: 'cache-only' }, env(), NOW))).toBe(
      'share_exists',
    );
    expect(codeOf(() => planShareCreate({ name: 'x', cacheMode: 'cache-only' }, env(), NOW))).toBe(
      'no_cache',
    );
    expect(codeOf(() => planShareCreate({ name: 'x', cacheMode: 'cache-then-move' }, env(), NOW))).toBe(
      'no_cache',
    );
  });
});

describe('planShareUpdate', () => {
  const existing = planShareCreate({ name: 'tv' }, env(), NOW);
  it('replaces the mutable fields and keeps name and creation time', () => {
    const later = '2026-11-22T11:00:00.000Z';
    expect(
      planShareUpdate(
        existing,
        { cacheMode: 'cache-only', createPolicy: 'lfs', smb: { enabled: false, browseable: false } },
        { migrationPending: false, hasCache: true },
        later,
      ),
    ).toEqual({
      name: 'tv',
      cacheMode: 'cache-only',
      createPolicy: 'lfs',
      smb: { enabled: false, browseable: false },
      createdAt: NOW,
      updatedAt: later,
    });
  });
  it('refuses during a migration and without a needed cache', () => {
    const input = {
      cacheMode: 'cache-only' as const,
      createPolicy: 'mfs' as const,
      smb: { enabled: true, browseable: true },
    };
    expect(
      codeOf(() => planShareUpdate(existing, input, { migrationPending: true, hasCache: true }, NOW)),
    ).toBe('migration_in_progress');
    expect(
      codeOf(() => planShareUpdate(existing, input, { migrationPending: false, hasCache: false }, NOW)),
    ).toBe('no_cache');
  });
});

describe('shareBranches (05 §1)', () => {
  const disks: BranchDisk[] = [
    { role: 'parity', mountpoint: '/mnt/parity1', removalState: null },
    { role: 'data', mountpoint: '/mnt/disk1', removalState: null },
    { role: 'data', mountpoint: '/mnt/disk2', removalState: 'evacuating' },
    { role: 'data', mountpoint: '/mnt/disk3', removalState: 'unpooled' },
    { role: 'data', mountpoint: '/mnt/disk4', removalState: 'unlisted' },
    { role: 'cache', mountpoint: '/mnt/cache', removalState: null },
  ];
  it('follows the cache mode and skips parity and disks that left the pool', () => {
    expect(shareBranches('tv', 'array-only', disks).map((b) => b.path)).toEqual([
      '/mnt/disk1/tv',
      '/mnt/disk2/tv',
    ]);
    expect(shareBranches('tv', 'cache-only', disks)).toEqual([{ disk: '/mnt/cache', path: '/mnt/cache/tv' }]);
    expect(shareBranches('tv', 'cache-then-move', disks).map((b) => b.path)).toEqual([
      '/mnt/cache/tv',
      '/mnt/disk1/tv',
      '/mnt/disk2/tv',
    ]);
    expect(hasCacheDisk(disks)).toBe(true);
    expect(hasCacheDisk(disks.slice(0, 2))).toBe(false);
  });
});
