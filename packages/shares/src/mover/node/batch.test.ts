/**
 * The mover's adapters on real files (temporary directories, the real rsync and /proc): the
 * open-for-writing check, a batch copied and verified, and the settling of a batch a killed or
 * cancelled run left half done.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BatchJournal, rsyncLeftovers, runBatch, settleBatch, TEMP_DIR_NAME } from './batch.ts';
import { runMover } from './mover.ts';
import { filesOpenForWriting, scanCache } from './scan.ts';

let work: string;
const at = (...p: string[]) => path.join(work, ...p);
const runner = createCommandRunner();

beforeAll(async () => {
  await requirePrerequisites({ tools: ['rsync'] });
});
beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'mover-'));
  for (const d of ['cache/share', 'disk1/share', 'disk2/share', 'journal'])
    await fs.mkdir(at(d), { recursive: true });
});
afterEach(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

describe('filesOpenForWriting', () => {
  it('names the files some process holds open for writing, not those open for reading', async () => {
    await fs.writeFile(at('cache/share/w.txt'), 'w');
    await fs.writeFile(at('cache/share/r.txt'), 'r');
    const w = fsSync.openSync(at('cache/share/w.txt'), 'a');
    const r = fsSync.openSync(at('cache/share/r.txt'), 'r');
    try {
      expect([...(await filesOpenForWriting('/proc', at('cache/share')))]).toEqual([at('cache/share/w.txt')]);
    } finally {
      fsSync.closeSync(w);
      fsSync.closeSync(r);
    }
    expect((await filesOpenForWriting('/proc', at('cache/share'))).size).toBe(0);
  });
});

describe('runBatch', () => {
  it('copies with rsync, verifies, removes the cache names; a hard link stays one inode', async () => {
    await fs.mkdir(at('cache/share/a/b'), { recursive: true });
    await fs.writeFile(at('cache/share/a/b/one'), 'one');
    await fs.link(at('cache/share/a/b/one'), at('cache/share/a/two'));
    await fs.symlink('b/one', at('cache/share/a/link'));
    await fs.chmod(at('cache/share/a/b'), 0o750);
    const r = await runBatch({
      runner,
      journalDir: at('journal'),
      share: 'share',
      cacheDir: at('cache/share'),
      diskDir: at('disk1/share'),
      diskRoot: at('disk1'),
      moves: [
        { rels: ['a/b/one', 'a/two'], kind: 'file', size: 3, disk: 0 },
        { rels: ['a/link'], kind: 'symlink', size: 0, disk: 0 },
      ],
      hash: true,
    });
    expect(r).toEqual({ movedFiles: 3, movedBytes: 3, skipped: [] });
    const one = await fs.stat(at('disk1/share/a/b/one'));
    expect((await fs.stat(at('disk1/share/a/two'))).ino).toBe(one.ino);
    expect(await fs.readlink(at('disk1/share/a/link'))).toBe('b/one');
    expect((await fs.stat(at('disk1/share/a/b'))).mode & 0o777).toBe(0o750);
    expect((await scanCache(at('cache/share'))).filter((e) => e.kind !== 'dir')).toEqual([]);
    expect(fsSync.existsSync(at('disk1', TEMP_DIR_NAME))).toBe(false);
    expect(await fs.readdir(at('journal'))).toEqual([]);
  });
  it('without a hash, rsync removes each single file once it is on the disk; a path already there is never overwritten, both kept', async () => {
    await fs.mkdir(at('cache/share/d'), { recursive: true });
    await fs.mkdir(at('disk1/share/d'), { recursive: true });
    await fs.writeFile(at('cache/share/d/new'), 'new');
    await fs.writeFile(at('cache/share/d/taken'), 'cache copy');
    await fs.writeFile(at('disk1/share/d/taken'), 'disk copy');
    await fs.writeFile(at('cache/share/d/one'), 'linked');
    await fs.link(at('cache/share/d/one'), at('cache/share/d/two'));
    const r = await runBatch({
      runner,
      journalDir: at('journal'),
      share: 'share',
      cacheDir: at('cache/share'),
      diskDir: at('disk1/share'),
      diskRoot: at('disk1'),
      moves: [
        { rels: ['d/new'], kind: 'file', size: 3, disk: 0 },
        { rels: ['d/one', 'd/two'], kind: 'file', size: 6, disk: 0 },
        { rels: ['d/taken'], kind: 'file', size: 10, disk: 0 },
      ],
      hash: false,
    });
    expect(r.movedFiles).toBe(3);
    expect(r.skipped.map((s) => s.path)).toEqual(['d/taken']);
    expect(await fs.readFile(at('disk1/share/d/new'), 'utf8')).toBe('new');
    expect((await fs.stat(at('disk1/share/d/two'))).ino).toBe((await fs.stat(at('disk1/share/d/one'))).ino);
    expect(await fs.readFile(at('disk1/share/d/taken'), 'utf8')).toBe('disk copy');
    expect(await fs.readFile(at('cache/share/d/taken'), 'utf8')).toBe('cache copy');
    expect(await fs.readdir(at('cache/share/d'))).toEqual(['taken']);
    expect(await fs.readdir(at('journal'))).toEqual([]);
  });
});

describe('settleBatch', () => {
  const journal = (units: BatchJournal['units']): BatchJournal => ({
    share: 'share',
    cacheDir: at('cache/share'),
    diskDir: at('disk1/share'),
    diskRoot: at('disk1'),
    units,
  });
  const T = new Date('2026-01-02T03:04:05Z');
  /** A copy on the disk exactly as rsync leaves it: same bytes, same mtime. */
  const copy = async (name: string) => {
    await fs.copyFile(at('cache/share', name), at('disk1/share', name));
    await fs.utimes(at('cache/share', name), T, T);
    await fs.utimes(at('disk1/share', name), T, T);
  };
  const factsOf = async (p: string) => {
    const st = await fs.lstat(p, { bigint: true });
    return { size: String(st.size), mtimeNs: String(st.mtimeNs) };
  };

  it('every file ends whole on exactly one side: done → cache removed; half a hard link or a changed file → back on the cache', async () => {
    // done: same on both sides
    await fs.writeFile(at('cache/share/done'), 'done');
    await copy('done');
    // a hard link of which only one name reached the disk
    await fs.writeFile(at('cache/share/h1'), 'linked');
    await fs.link(at('cache/share/h1'), at('cache/share/h2'));
    await copy('h1');
    // copied, then written again on the cache
    await fs.writeFile(at('cache/share/changed'), 'old');
    await copy('changed');
    const recorded = {
      done: await factsOf(at('cache/share/done')),
      h1: await factsOf(at('cache/share/h1')),
      changed: await factsOf(at('cache/share/changed')),
    };
    await fs.writeFile(at('cache/share/changed'), 'newer and longer');
    // not reached at all
    await fs.writeFile(at('cache/share/untouched'), 'untouched');
    await fs.mkdir(at('disk1', TEMP_DIR_NAME));
    await fs.writeFile(at('disk1', TEMP_DIR_NAME, '.half.XYZ'), 'half');
    await fs.writeFile(at('journal/batch.json'), '{}');

    const r = await settleBatch(
      at('journal'),
      journal([
        { rels: ['done'], kind: 'file', facts: [recorded.done] },
        { rels: ['h1', 'h2'], kind: 'file', facts: [recorded.h1, recorded.h1] },
        { rels: ['changed'], kind: 'file', facts: [recorded.changed] },
        { rels: ['untouched'], kind: 'file', facts: [await factsOf(at('cache/share/untouched'))] },
      ]),
      true,
    );
    expect(r.movedFiles).toBe(1);
    expect(r.skipped).toEqual([
      { share: 'share', path: 'h1', reason: 'copy_failed' },
      { share: 'share', path: 'h2', reason: 'copy_failed' },
      { share: 'share', path: 'changed', reason: 'changed_during_move' },
      { share: 'share', path: 'untouched', reason: 'copy_failed' },
    ]);
    expect((await fs.readdir(at('cache/share'))).sort()).toEqual(['changed', 'h1', 'h2', 'untouched']);
    expect(await fs.readdir(at('disk1/share'))).toEqual(['done']);
    expect((await fs.stat(at('cache/share/h1'))).nlink).toBe(2);
    expect(await fs.readFile(at('cache/share/changed'), 'utf8')).toBe('newer and longer');
    expect(fsSync.existsSync(at('disk1', TEMP_DIR_NAME))).toBe(false);
    expect(await fs.readdir(at('journal'))).toEqual([]);
  });

  it('a disk copy that is not this batch’s (other facts) is never removed', async () => {
    await fs.writeFile(at('cache/share/x'), 'cache');
    const recorded = await factsOf(at('cache/share/x'));
    await fs.writeFile(at('disk1/share/x'), 'someone else wrote this meanwhile');
    await settleBatch(at('journal'), journal([{ rels: ['x'], kind: 'file', facts: [recorded] }]), false);
    expect(await fs.readFile(at('disk1/share/x'), 'utf8')).toBe('someone else wrote this meanwhile');
    expect(await fs.readFile(at('cache/share/x'), 'utf8')).toBe('cache');
  });
});

describe('rsyncLeftovers', () => {
  it('names only rsync temporary files of the batch’s files created since it began, never a user’s file', async () => {
    await fs.mkdir(at('disk1/share/d'), { recursive: true });
    await fs.writeFile(at('disk1/share/d/.f.bin.Older1'), 'a user file from before');
    await new Promise((r) => setTimeout(r, 400));
    const journal: BatchJournal = {
      share: 'share',
      cacheDir: at('cache/share'),
      diskDir: at('disk1/share'),
      diskRoot: at('disk1'),
      units: [{ rels: ['d/f.bin'], kind: 'file', facts: [null] }],
      startedAt: Date.now(),
    };
    await fs.writeFile(at('disk1/share/d/.f.bin.Ab12Cd'), 'half');
    await fs.writeFile(at('disk1/share/d/.g.bin.Ab12Cd'), 'not a file of the batch');
    await fs.writeFile(at('disk1/share/d/.f.bin.toolong1'), 'not rsync’s pattern');
    expect(await rsyncLeftovers(journal)).toEqual(['d/.f.bin.Ab12Cd']);
    await settleBatch(at('journal'), journal, false);
    expect((await fs.readdir(at('disk1/share/d'))).sort()).toEqual([
      '.f.bin.Older1',
      '.f.bin.toolong1',
      '.g.bin.Ab12Cd',
    ]);
  });
});

describe('runMover', () => {
  it('tidies empty directories the disks hold, keeps the others and the top; a cancelled run moves nothing more', async () => {
    await fs.mkdir(at('cache/share/a/deep'), { recursive: true });
    await fs.writeFile(at('cache/share/a/deep/f'), 'f');
    await fs.mkdir(at('cache/share/lonely'), { recursive: true });
    const base = {
      shares: [{ name: 'share', createPolicy: 'mfs' as const }],
      cacheRoot: at('cache'),
      dataDisks: [at('disk1'), at('disk2')],
      minFreeBytes: 0,
      verify: 'size-mtime' as const,
      journalDir: at('journal'),
      procDir: '/proc',
      runner,
    };
    const aborted = new AbortController();
    aborted.abort();
    const none = await runMover({ ...base, signal: aborted.signal });
    expect(none.movedFiles).toBe(0);
    expect(fsSync.existsSync(at('cache/share/a/deep/f'))).toBe(true);

    const r = await runMover(base);
    expect(r).toMatchObject({ movedFiles: 1, skippedCount: 0, shares: ['share'] });
    // `lonely` was moved as an empty directory, then tidied like `a` and `a/deep`
    expect(r.removedDirs).toBe(3);
    expect(await fs.readdir(at('cache/share'))).toEqual([]);
    const onDisks = ['disk1', 'disk2'].filter((d) => fsSync.existsSync(at(d, 'share/lonely')));
    expect(onDisks).toHaveLength(1);
  });

  it('never writes through a directory that is a symlink on a data disk: the file goes to the other disk', async () => {
    await fs.mkdir(at('outside'));
    await fs.symlink(at('outside'), at('disk1/share/a'));
    await fs.mkdir(at('cache/share/a'));
    await fs.writeFile(at('cache/share/a/f'), 'f');
    const r = await runMover({
      shares: [{ name: 'share', createPolicy: 'ff' }],
      cacheRoot: at('cache'),
      dataDisks: [at('disk1'), at('disk2')],
      minFreeBytes: 0,
      verify: 'size-mtime',
      journalDir: at('journal'),
      procDir: '/proc',
      runner,
    });
    expect(r.movedFiles).toBe(1);
    expect(await fs.readdir(at('outside'))).toEqual([]);
    expect(await fs.readFile(at('disk2/share/a/f'), 'utf8')).toBe('f');
    expect((await fs.lstat(at('disk1/share/a'))).isSymbolicLink()).toBe(true);
  });

  it('a share directory that is a symlink on a data disk: nothing goes to that disk', async () => {
    await fs.mkdir(at('outside'));
    await fs.rm(at('disk1/share'), { recursive: true });
    await fs.symlink(at('outside'), at('disk1/share'));
    await fs.writeFile(at('cache/share/f'), 'f');
    const r = await runMover({
      shares: [{ name: 'share', createPolicy: 'ff' }],
      cacheRoot: at('cache'),
      dataDisks: [at('disk1'), at('disk2')],
      minFreeBytes: 0,
      verify: 'size-mtime',
      journalDir: at('journal'),
      procDir: '/proc',
      runner,
    });
    expect(r.movedFiles).toBe(1);
    expect(await fs.readdir(at('outside'))).toEqual([]);
    expect(await fs.readFile(at('disk2/share/f'), 'utf8')).toBe('f');
  });
});
