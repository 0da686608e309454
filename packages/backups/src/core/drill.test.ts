import { describe, expect, it } from 'vitest';
import { compareTrees, drillSample, nodeFromLs, type TreeNode } from './drill.ts';

const n = (path: string, o: Partial<TreeNode> = {}): TreeNode => ({
  path,
  type: 'file',
  size: 10,
  mode: 0o644,
  uid: 0,
  gid: 0,
  ...o,
});

describe('drill comparison', () => {
  it('reads restic ls nodes: Go file modes become Unix permission bits', () => {
    expect(
      nodeFromLs({ struct_type: 'node', type: 'dir', path: '/sub', mode: 2147484141, uid: 1000, gid: 100 }),
    ).toEqual({ path: 'sub', type: 'dir', size: null, mode: 0o755, uid: 1000, gid: 100 });
    expect(
      nodeFromLs({
        struct_type: 'node',
        type: 'file',
        path: '/s/x',
        size: 3,
        mode: (1 << 23) | 0o750,
        uid: 0,
        gid: 0,
      }),
    ).toMatchObject({ mode: 0o4750, size: 3 });
    expect(nodeFromLs({ struct_type: 'snapshot', paths: ['/x'] })).toBeNull();
  });
  it('names each missing, extra or different entry', () => {
    const expected = [
      n('a'),
      n('d', { type: 'dir', size: null, mode: 0o755 }),
      n('d/b', { size: 5 }),
      n('c'),
    ];
    const actual = [
      n('a'),
      n('d', { type: 'dir', size: null, mode: 0o700 }),
      n('d/b', { size: 4, uid: 1000 }),
      n('e'),
    ];
    expect(compareTrees(expected, actual)).toEqual([
      { path: 'c', what: 'missing' },
      { path: 'd', what: 'mode', expected: '755', found: '700' },
      { path: 'd/b', what: 'size', expected: 5, found: 4 },
      { path: 'd/b', what: 'owner', expected: '0:0', found: '1000:0' },
      { path: 'e', what: 'extra' },
    ]);
    expect(compareTrees(expected.slice(0, 3), actual.slice(0, 3), { modes: false, owners: false })).toEqual([
      { path: 'd/b', what: 'size', expected: 5, found: 4 },
    ]);
  });
  it('a sample compares only the sampled paths, not the folders on the way', () => {
    const expected = [n('d', { type: 'dir', size: null, mode: 0o755 }), n('d/b'), n('d/c')];
    const actual = [n('d', { type: 'dir', size: null, mode: 0o700 }), n('d/b')];
    expect(compareTrees(expected, actual, { modes: true, owners: true, only: ['d/b'] })).toEqual([]);
  });
  it('restores the whole snapshot when it fits, else a seeded sample that fits', () => {
    const nodes = Array.from({ length: 50 }, (_, i) => n(`f${i}`, { size: 100 }));
    expect(drillSample(nodes, 5000, 's')).toEqual({ whole: true, bytes: 5000 });
    const a = drillSample(nodes, 1000, 'one');
    const b = drillSample(nodes, 1000, 'two');
    expect(a.whole).toBe(false);
    expect(a.bytes).toBe(1000);
    expect(a.whole === false && a.paths).toHaveLength(10);
    expect(a.whole === false && b.whole === false && a.paths.join() !== b.paths.join()).toBe(true);
    expect(drillSample(nodes, 1000, 'one')).toEqual(a);
  });
});
