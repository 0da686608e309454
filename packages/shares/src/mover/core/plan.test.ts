import { describe, expect, it } from 'vitest';
import type { CacheEntry, CreatePolicy } from './model.ts';
import { batchMoves, footprint, moveUnits, planMoves } from './plan.ts';
import { countByReason, sameCopy, skipEvent } from './report.ts';

const MiB = 1024 * 1024;
const file = (rel: string, size = 1000, inode = rel, nlink = 1): CacheEntry => ({
  rel,
  kind: 'file',
  size,
  inode,
  nlink,
});
const dir = (rel: string, empty = false): CacheEntry => ({
  rel,
  kind: 'dir',
  size: 0,
  inode: rel,
  nlink: 2,
  empty,
});

const plan = (
  policy: CreatePolicy,
  entries: CacheEntry[],
  free: number[],
  o: { open?: string[]; present?: Record<string, number[]>; minFree?: number } = {},
) =>
  planMoves({
    share: 'media',
    policy,
    minFreeBytes: o.minFree ?? 10 * MiB,
    disks: free.map((f, i) => ({ mountpoint: `/mnt/disk${i + 1}`, freeBytes: f })),
    entries,
    openForWriting: new Set(o.open ?? []),
    presentOn: (rel) => o.present?.[rel] ?? [],
  });

describe('planMoves', () => {
  it('mfs puts each file on the disk with the most free space, counting what it already placed', () => {
    const p = plan(
      'mfs',
      [file('a', 30 * MiB), file('b', 30 * MiB), file('c', 30 * MiB)],
      [100 * MiB, 80 * MiB],
    );
    expect(p.moves.map((m) => m.disk)).toEqual([0, 1, 0]);
    expect(p.skipped).toEqual([]);
  });

  it('lfs picks the least free disk that keeps minfreespace, ff the first one', () => {
    expect(plan('lfs', [file('a', 5 * MiB)], [100 * MiB, 50 * MiB]).moves[0]!.disk).toBe(1);
    expect(plan('ff', [file('a', 5 * MiB)], [100 * MiB, 500 * MiB]).moves[0]!.disk).toBe(0);
  });

  it('a full disk sends the file to the next by policy; none with room: skipped no_space', () => {
    // disk1 would drop below minfreespace (10 MiB) with a 15 MiB file
    const p = plan('ff', [file('a', 15 * MiB)], [20 * MiB, 40 * MiB]);
    expect(p.moves[0]!.disk).toBe(1);
    const none = plan('mfs', [file('big', 50 * MiB)], [20 * MiB, 40 * MiB]);
    expect(none.moves).toEqual([]);
    expect(none.skipped).toEqual([{ share: 'media', path: 'big', reason: 'no_space' }]);
  });

  it('skips files open for writing and paths already on a data disk', () => {
    const p = plan('mfs', [file('open.txt'), file('dup.txt'), file('ok.txt')], [100 * MiB], {
      open: ['open.txt'],
      present: { 'dup.txt': [0] },
    });
    expect(p.moves.map((m) => m.rels)).toEqual([['ok.txt']]);
    expect(p.skipped).toEqual([
      { share: 'media', path: 'dup.txt', reason: 'exists_on_array' },
      { share: 'media', path: 'open.txt', reason: 'open_for_writing' },
    ]);
  });

  it('keeps the names of a hard-linked file together (one unit, counted once)', () => {
    const units = moveUnits([file('x/a', 100, 'i1', 2), file('y/b', 100, 'i1', 2), file('z', 5)]);
    expect(units).toEqual([
      { rels: ['x/a', 'y/b'], kind: 'file', size: 100 },
      { rels: ['z'], kind: 'file', size: 5 },
    ]);
    // one name open: both stay
    const p = plan('mfs', [file('x/a', 100, 'i1', 2), file('y/b', 100, 'i1', 2)], [100 * MiB], {
      open: ['y/b'],
    });
    expect(p.skipped.map((s) => s.path)).toEqual(['x/a', 'y/b']);
  });

  it('moves empty directories, not the ones with content or already on the array', () => {
    const p = plan(
      'mfs',
      [dir('full'), file('full/f'), dir('empty', true), dir('there', true)],
      [100 * MiB],
      {
        present: { there: [0] },
      },
    );
    expect(p.moves.map((m) => [m.kind, m.rels[0]])).toEqual([
      ['dir', 'empty'],
      ['file', 'full/f'],
    ]);
    expect(p.skipped).toEqual([]);
  });

  it('epmfs follows the disks that hold the parent, mspmfs walks up to a shared ancestor', () => {
    const present = { photos: [1], 'photos/2026': [1] };
    expect(plan('epmfs', [file('photos/2026/a')], [500 * MiB, 100 * MiB], { present }).moves[0]!.disk).toBe(
      1,
    );
    // parent held by a full disk: epmfs skips, mspmfs goes up to the share (every disk)
    const full = [500 * MiB, 12 * MiB];
    expect(plan('epmfs', [file('photos/2026/a', 5 * MiB)], full, { present }).skipped[0]!.reason).toBe(
      'no_space',
    );
    expect(plan('mspmfs', [file('photos/2026/a', 5 * MiB)], full, { present }).moves[0]!.disk).toBe(0);
    // a folder new to the array: epmfs as mspmfs, and the next file of that folder follows the first
    const p = plan('epmfs', [file('new/a', MiB), file('new/b', MiB)], [100 * MiB, 99 * MiB]);
    expect(p.moves.map((m) => m.disk)).toEqual([0, 0]);
  });
});

describe('planMoves: a directory of the path that is a symlink or a file on a disk', () => {
  it('never writes below it on that disk; on every disk: skipped, both kept', () => {
    const p = planMoves({
      share: 'media',
      policy: 'mfs',
      minFreeBytes: 0,
      disks: [
        { mountpoint: '/mnt/disk1', freeBytes: 500 * MiB },
        { mountpoint: '/mnt/disk2', freeBytes: 100 * MiB },
      ],
      entries: [file('a/b/c'), file('x/y')],
      openForWriting: new Set(),
      presentOn: () => [],
      notDirOn: (rel) => (rel === 'a' ? [0] : rel === 'x' ? [0, 1] : []),
    });
    expect(p.moves.map((m) => [m.rels[0], m.disk])).toEqual([['a/b/c', 1]]);
    expect(p.skipped).toEqual([{ share: 'media', path: 'x/y', reason: 'exists_on_array' }]);
  });
});

describe('batchMoves', () => {
  it('batches per disk within the limits, never splitting a hard-linked file', () => {
    const m = (rels: string[], disk: number, size = 1) => ({ rels, kind: 'file' as const, size, disk });
    const b = batchMoves([m(['a'], 0), m(['b', 'c'], 0), m(['d'], 1), m(['e'], 0)], {
      maxFiles: 2,
      maxBytes: 100,
    });
    expect(b.map((x) => x.flatMap((y) => y.rels))).toEqual([['a'], ['b', 'c'], ['e'], ['d']]);
    expect(footprint(1)).toBe(8192);
  });
});

describe('report', () => {
  it('one event names the counts and the first paths', () => {
    const skipped = [
      { share: 'media', path: 'a', reason: 'open_for_writing' as const },
      { share: 'media', path: 'b', reason: 'no_space' as const },
      { share: 'media', path: 'c', reason: 'no_space' as const },
    ];
    const e = skipEvent({ skipped, skippedCount: 3, skippedByReason: countByReason(skipped) }, 2);
    expect(e.eventType).toBe('mover_skipping_files');
    expect(e.title).toBe('The mover left 3 files on the cache');
    expect(e.message).toContain('1 open for writing, 2 no data disk has room');
    expect(e.message).toContain(
      '/mnt/user/media/a (open for writing); /mnt/user/media/b (no data disk has room), and 1 more',
    );
  });

  it('a copy is the same when size and mtime (and the hash, when taken) agree', () => {
    const f = { kind: 'file' as const, size: 5n, mtimeNs: 7n };
    expect(sameCopy(f, { ...f })).toBe(true);
    expect(sameCopy(f, { ...f, mtimeNs: 8n })).toBe(false);
    expect(sameCopy({ ...f, sha256: 'x' }, { ...f, sha256: 'y' })).toBe(false);
    expect(
      sameCopy(
        { kind: 'symlink', size: 1n, mtimeNs: 1n, linkTarget: 'a' },
        { kind: 'symlink', size: 1n, mtimeNs: 2n, linkTarget: 'a' },
      ),
    ).toBe(true);
  });
});
