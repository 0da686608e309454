import { describe, expect, it } from 'vitest';
import { isBranchPath, planBranches } from './branches.ts';
import type { DataDeleteSlot } from './model.ts';

const slot = (
  role: DataDeleteSlot['role'],
  roleIndex: number,
  removalState: DataDeleteSlot['removalState'] = null,
): DataDeleteSlot => ({
  role,
  roleIndex,
  mountpoint: role === 'cache' ? '/mnt/cache' : `/mnt/${role === 'data' ? 'disk' : 'parity'}${roleIndex}`,
  fsUuid: `uuid-${role}-${roleIndex}`,
  removalState,
});

const ARRAY = [
  slot('parity', 1),
  slot('data', 3),
  slot('data', 1),
  slot('cache', 1),
  slot('data', 2),
  slot('parity', 2),
];
const paths = (ds: { path: string }[]) => ds.map((d) => d.path);

describe('planBranches (05 §1)', () => {
  it('array-only: every data disk by ascending number; the cache directory is a non-branch', () => {
    const plan = planBranches({ name: 'media', cacheMode: 'array-only' }, ARRAY);
    expect(paths(plan.branches)).toEqual(['/mnt/disk1/media', '/mnt/disk2/media', '/mnt/disk3/media']);
    expect(plan.branches[0]).toEqual({ disk: '/mnt/disk1', path: '/mnt/disk1/media', fsUuid: 'uuid-data-1' });
    expect(plan.nonBranches).toEqual([{ disk: '/mnt/cache', path: '/mnt/cache/media' }]);
  });

  it('cache-only: only the cache; the data disk directories are non-branches', () => {
    const plan = planBranches({ name: 'appdata', cacheMode: 'cache-only' }, ARRAY);
    expect(paths(plan.branches)).toEqual(['/mnt/cache/appdata']);
    expect(paths(plan.nonBranches)).toEqual([
      '/mnt/disk1/appdata',
      '/mnt/disk2/appdata',
      '/mnt/disk3/appdata',
    ]);
  });

  it('cache-then-move: the cache first, then the data disks', () => {
    const plan = planBranches({ name: 'photos', cacheMode: 'cache-then-move' }, ARRAY);
    expect(paths(plan.branches)).toEqual([
      '/mnt/cache/photos',
      '/mnt/disk1/photos',
      '/mnt/disk2/photos',
      '/mnt/disk3/photos',
    ]);
    expect(plan.nonBranches).toEqual([]);
  });

  it('never plans a parity disk', () => {
    for (const mode of ['array-only', 'cache-only', 'cache-then-move'] as const) {
      const plan = planBranches({ name: 'media', cacheMode: mode }, ARRAY);
      expect([...plan.branches, ...plan.nonBranches].some((b) => b.disk.startsWith('/mnt/parity'))).toBe(
        false,
      );
    }
  });

  it('keeps evacuating and evacuated disks; unpooled and unlisted ones are never branches, but shown', () => {
    const slots = [
      slot('data', 4, 'unlisted'),
      slot('data', 1, 'evacuating'),
      slot('data', 2, 'unpooled'),
      slot('data', 3, 'evacuated'),
      slot('cache', 1),
    ];
    const plan = planBranches({ name: 'media', cacheMode: 'array-only' }, slots);
    expect(paths(plan.branches)).toEqual(['/mnt/disk1/media', '/mnt/disk3/media']);
    expect(plan.nonBranches).toEqual([
      { disk: '/mnt/cache', path: '/mnt/cache/media' },
      { disk: '/mnt/disk2', path: '/mnt/disk2/media' },
      { disk: '/mnt/disk4', path: '/mnt/disk4/media' },
    ]);
    const cacheOnly = planBranches({ name: 'media', cacheMode: 'cache-only' }, slots);
    expect(paths(cacheOnly.branches)).toEqual(['/mnt/cache/media']);
    expect(paths(cacheOnly.nonBranches)).toEqual([
      '/mnt/disk1/media',
      '/mnt/disk2/media',
      '/mnt/disk3/media',
      '/mnt/disk4/media',
    ]);
  });

  it('a cache mode with a cache has no cache branch when the array has no cache', () => {
    const plan = planBranches({ name: 'media', cacheMode: 'cache-only' }, [slot('data', 1)]);
    expect(plan.branches).toEqual([]);
  });

  it('refuses a slot whose mountpoint is not where the array setup puts it', () => {
    expect(() =>
      planBranches({ name: 'media', cacheMode: 'array-only' }, [{ ...slot('data', 1), mountpoint: '/' }]),
    ).toThrow(/unexpected mountpoint/);
    expect(() =>
      planBranches({ name: 'media', cacheMode: 'cache-only' }, [
        { ...slot('cache', 1), mountpoint: '/mnt/user' },
      ]),
    ).toThrow(/unexpected mountpoint/);
  });

  it('refuses a share name that could leave the mountpoint', () => {
    for (const name of ['..', '.', 'a/b', '', 'x'.repeat(65), 'mé']) {
      expect(() => planBranches({ name, cacheMode: 'array-only' }, ARRAY)).toThrow(/not a share name/);
    }
  });
});

describe('isBranchPath', () => {
  it('accepts exactly <cache or data mountpoint>/<share>', () => {
    expect(isBranchPath('media', '/mnt/disk1', '/mnt/disk1/media')).toBe(true);
    expect(isBranchPath('media', '/mnt/cache', '/mnt/cache/media')).toBe(true);
    expect(isBranchPath('media', '/mnt/disk12', '/mnt/disk12/media')).toBe(true);
  });
  it('refuses anything else', () => {
    expect(isBranchPath('media', '/mnt/disk1', '/mnt/disk1/media/')).toBe(false);
    expect(isBranchPath('media', '/mnt/disk1', '/mnt/disk1/media2')).toBe(false);
    expect(isBranchPath('media', '/mnt/disk1', '/mnt/disk1')).toBe(false);
    expect(isBranchPath('media', '/mnt/parity1', '/mnt/parity1/media')).toBe(false);
    expect(isBranchPath('media', '/mnt/user', '/mnt/user/media')).toBe(false);
    expect(isBranchPath('media', '/mnt/disks/usb', '/mnt/disks/usb/media')).toBe(false);
    expect(isBranchPath('..', '/mnt/disk1', '/mnt/disk1/..')).toBe(false);
    expect(isBranchPath('media', '/mnt/disk0', '/mnt/disk0/media')).toBe(false);
  });
});
