/**
 * The tree deleter against real files in a temporary sandbox root (plain directories on the host
 * filesystem). Loop-device disks, read-only and failing disks are in share-data-delete.system.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHostPaths, type HostPaths } from '@appliance/common';
import { fsAtAddonPath } from '@appliance/fs-at';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DeleteProgress,
  type TreeDeleteOptions,
  type VerifiedBranch,
  defaultWorkerCount,
  deleteBranchTrees,
} from './tree-deleter.ts';

/** Both walkers: the native `*at` addon (when built; its own tests fail when it is not) and the pure-JS fallback. */
const WALKERS = [
  ...(fsAtAddonPath() === null ? [] : [{ walker: 'native', native: true } as const]),
  { walker: 'js', native: false } as const,
];

let root: string;
let paths: HostPaths;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-tree-'));
  paths = createHostPaths({ root });
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** Creates `<root>/mnt/<disk>/<share>` and returns it as a verified branch. */
function branch(disk: string, share: string): VerifiedBranch {
  const logical = `/mnt/${disk}/${share}`;
  const real = paths.real(logical);
  fs.mkdirSync(real, { recursive: true, mode: 0o775 });
  const st = fs.statSync(real);
  return { disk: `/mnt/${disk}`, path: logical, realPath: real, dev: st.dev, ino: st.ino };
}

/** A tree of `dirs` × `sub` directories with `files` files of `size` bytes each. */
function fill(dir: string, dirs: number, sub: number, files: number, size = 0): number {
  let n = 0;
  for (let i = 0; i < dirs; i++) {
    for (let j = 0; j < sub; j++) {
      const d = path.join(dir, `a${i}`, `b${j}`);
      fs.mkdirSync(d, { recursive: true });
      for (let k = 0; k < files; k++) {
        fs.writeFileSync(path.join(d, `f${k}`), Buffer.alloc(size, 1));
        n += 1;
      }
    }
  }
  return n;
}

/** Every path below `dir`, links not followed. */
function listAll(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    out.push(prefix + e.name);
    if (e.isDirectory()) out.push(...listAll(path.join(dir, e.name), `${prefix}${e.name}/`));
  }
  return out.sort();
}

describe.each(WALKERS)('deleteBranchTrees ($walker walker)', ({ walker, native }) => {
  const deleteTrees = (options: TreeDeleteOptions) => deleteBranchTrees({ ...options, native });

  it('empties each branch (files, then directories, post-order) and keeps the branch directory with its mode', async () => {
    const b1 = branch('disk1', 'media');
    const b2 = branch('disk2', 'media');
    fs.chmodSync(b1.realPath, 0o2775);
    const n1 = fill(b1.realPath, 3, 4, 25, 10);
    const n2 = fill(b2.realPath, 2, 2, 5);
    fs.writeFileSync(path.join(b1.realPath, 'top.txt'), 'x');
    const result = await deleteTrees({
      share: 'media',
      dryRun: false,
      paths,
      branches: [b1, b2],
      workers: 2,
    });
    expect(result.failures.count).toBe(0);
    expect(result.walker).toBe(walker);
    expect(result.branches.map((b) => [b.disk, b.filesDeleted, b.dirsDeleted])).toEqual([
      ['/mnt/disk1', n1 + 1, 3 + 12],
      ['/mnt/disk2', n2, 2 + 4],
    ]);
    expect(listAll(b1.realPath)).toEqual([]);
    expect(listAll(b2.realPath)).toEqual([]);
    expect(fs.statSync(b1.realPath).mode & 0o7777).toBe(0o2775);
    expect(result.branches[0]!.bytesFreed).toBeGreaterThan(0);
  });

  it('answers only once no thread holds a handle below a branch (the disk can be unmounted at once)', async () => {
    const b1 = branch('disk1', 'media');
    const b2 = branch('disk2', 'media');
    fill(b1.realPath, 2, 3, 20);
    fill(b2.realPath, 2, 3, 20);
    const below = (fd: string): boolean => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(paths.real('/mnt'));
      } catch {
        return false; // closed since it was listed
      }
    };
    for (const dryRun of [true, false]) {
      await deleteTrees({ share: 'media', dryRun, paths, branches: [b1, b2], workers: 2 });
      // read at once, in the same turn as the answer: nothing is closed later
      expect(fs.readdirSync('/proc/self/fd').filter(below)).toEqual([]);
    }
  });

  it('removes symbolic links as links and never touches their targets', async () => {
    const b = branch('disk1', 'media');
    const other = paths.real('/mnt/disk1/appdata');
    fs.mkdirSync(path.join(other, 'keep'), { recursive: true });
    fs.writeFileSync(path.join(other, 'keep', 'file'), 'precious');
    fs.symlinkSync(other, path.join(b.realPath, 'link'));
    fs.symlinkSync('/', path.join(b.realPath, 'root'));
    fs.mkdirSync(path.join(b.realPath, 'd'));
    fs.symlinkSync(path.join(other, 'keep', 'file'), path.join(b.realPath, 'd', 'filelink'));
    fs.symlinkSync('/nonexistent/target', path.join(b.realPath, 'dangling'));
    const result = await deleteTrees({ share: 'media', dryRun: false, paths, branches: [b] });
    expect(result.failures.count).toBe(0);
    expect(result.branches[0]).toMatchObject({ filesDeleted: 4, dirsDeleted: 1 });
    expect(listAll(b.realPath)).toEqual([]);
    expect(fs.readFileSync(path.join(other, 'keep', 'file'), 'utf8')).toBe('precious');
  });

  it('counts the bytes of a hard-linked file once its last link inside the share is removed, and not when a link stays outside', async () => {
    const b = branch('disk1', 'media');
    const outside = paths.real('/mnt/disk1/other');
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(b.realPath, 'inner1'), Buffer.alloc(65536, 1));
    fs.linkSync(path.join(b.realPath, 'inner1'), path.join(b.realPath, 'inner2'));
    fs.writeFileSync(path.join(b.realPath, 'shared'), Buffer.alloc(65536, 2));
    fs.linkSync(path.join(b.realPath, 'shared'), path.join(outside, 'shared'));
    const blocks = fs.statSync(path.join(b.realPath, 'inner1')).blocks * 512;
    const dry = await deleteTrees({ share: 'media', dryRun: true, paths, branches: [b] });
    const real = await deleteTrees({ share: 'media', dryRun: false, paths, branches: [b] });
    expect(real.branches[0]).toMatchObject({ filesDeleted: 3, bytesFreed: blocks });
    expect(dry.branches[0]).toEqual(real.branches[0]);
    expect(fs.readFileSync(path.join(outside, 'shared')).length).toBe(65536);
  });

  it('a dry run reports exactly what the real run then deletes, and deletes nothing', async () => {
    const b = branch('disk1', 'media');
    fill(b.realPath, 4, 3, 40, 5000);
    fs.symlinkSync('/', path.join(b.realPath, 'a0', 'root'));
    const before = listAll(b.realPath);
    const dry = await deleteTrees({ share: 'media', dryRun: true, paths, branches: [b], workers: 3 });
    expect(listAll(b.realPath)).toEqual(before);
    const real = await deleteTrees({ share: 'media', dryRun: false, paths, branches: [b], workers: 3 });
    expect(dry.branches).toEqual(real.branches);
    expect(real.branches[0]).toMatchObject({ filesDeleted: 4 * 3 * 40 + 1, dirsDeleted: 4 + 12 });
  });

  it('deletes names that are not UTF-8', async () => {
    const b = branch('disk1', 'media');
    const dir = Buffer.concat([Buffer.from(`${b.realPath}/`), Buffer.from([0x63, 0x61, 0x66, 0xe9])]);
    fs.mkdirSync(dir);
    fs.writeFileSync(Buffer.concat([dir, Buffer.from('/'), Buffer.from([0xff, 0xfe])]), 'x');
    const result = await deleteTrees({ share: 'media', dryRun: false, paths, branches: [b] });
    expect(result.failures.count).toBe(0);
    expect(result.branches[0]).toMatchObject({ filesDeleted: 1, dirsDeleted: 1 });
    expect(fs.readdirSync(b.realPath)).toEqual([]);
  });

  it('deletes a tree 1,200 levels deep completely (more levels than the handles it keeps open)', async () => {
    const b = branch('disk1', 'media');
    let dir = b.realPath;
    for (let i = 0; i < 1200; i++) {
      dir = path.join(dir, 'd');
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'f'), 'x');
    }
    const result = await deleteTrees({
      share: 'media',
      dryRun: false,
      paths,
      branches: [b],
      workers: 1,
    });
    expect(result.failures.count).toBe(0);
    expect(result.branches[0]).toMatchObject({ filesDeleted: 1200, dirsDeleted: 1200 });
    expect(fs.readdirSync(b.realPath)).toEqual([]);
  });

  it('deletes a directory of 30,000 entries while reading it, and reports progress', async () => {
    const b = branch('disk1', 'media');
    const big = path.join(b.realPath, 'big');
    fs.mkdirSync(big);
    for (let i = 0; i < 30_000; i++) fs.closeSync(fs.openSync(path.join(big, `file-${i}`), 'w'));
    const seen: DeleteProgress[] = [];
    const result = await deleteTrees({
      share: 'media',
      dryRun: false,
      paths,
      branches: [b],
      onProgress: (p) => seen.push(p),
    });
    expect(result.failures.count).toBe(0);
    expect(result.branches[0]).toMatchObject({ filesDeleted: 30_000, dirsDeleted: 1 });
    expect(seen.at(-1)!.totals).toEqual({ filesDeleted: 30_000, dirsDeleted: 1, bytesFreed: 0 });
    expect(fs.readdirSync(b.realPath)).toEqual([]);
  });

  it('refuses a path that is not exactly a planned branch (programming error), deleting nothing', async () => {
    const b = branch('disk1', 'media');
    fs.writeFileSync(path.join(b.realPath, 'keep'), 'x');
    const wrong = [
      { ...b, path: '/mnt/disk1/media/..', realPath: paths.real('/mnt/disk1') },
      { ...b, disk: '/mnt/parity1', path: '/mnt/parity1/media', realPath: paths.real('/mnt/parity1/media') },
      { ...b, path: '/mnt/user/media', disk: '/mnt/user' },
      { ...b, realPath: '/mnt/disk1/media' },
      { ...b, path: '/mnt/disk1/media2' },
    ];
    for (const w of wrong) {
      await expect(deleteTrees({ share: 'media', dryRun: false, paths, branches: [w] })).rejects.toThrow(
        /not a planned branch/,
      );
    }
    expect(fs.readdirSync(b.realPath)).toEqual(['keep']);
  });

  it('records a directory replaced after the pre-flight and deletes nothing there', async () => {
    const b = branch('disk1', 'media');
    fs.writeFileSync(path.join(b.realPath, 'f'), 'x');
    // swap the branch directory for another one after it was "verified"
    fs.renameSync(b.realPath, paths.real('/mnt/disk1/moved'));
    fs.mkdirSync(b.realPath);
    fs.writeFileSync(path.join(b.realPath, 'new'), 'x');
    const result = await deleteTrees({ share: 'media', dryRun: false, paths, branches: [b] });
    expect(result.failures.listed).toEqual([
      { disk: '/mnt/disk1', path: '/mnt/disk1/media', error: 'ESTALE' },
    ]);
    expect(fs.readdirSync(b.realPath)).toEqual(['new']);
  });
});

describe('defaultWorkerCount', () => {
  it('uses one thread per branch, and at least one per core up to 4', () => {
    expect(defaultWorkerCount(1, 1)).toBe(1);
    expect(defaultWorkerCount(3, 1)).toBe(3);
    expect(defaultWorkerCount(1, 2)).toBe(2);
    expect(defaultWorkerCount(4, 2)).toBe(4);
    expect(defaultWorkerCount(1, 4)).toBe(4);
    expect(defaultWorkerCount(2, 16)).toBe(4);
    expect(defaultWorkerCount(6, 16)).toBe(6);
    expect(defaultWorkerCount(40, 2)).toBe(16);
  });
});
