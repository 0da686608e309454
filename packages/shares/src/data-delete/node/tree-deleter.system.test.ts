/**
 * The tree deleter on a real XFS loop disk, with each walker: the native `*at` addon
 * (@appliance/fs-at) and the pure-JS `/proc/self/fd` fallback. Both must delete the same entries,
 * report the same counts and bytes, and keep 05 §5's guarantees: links removed as links, hard links
 * outside keep their data, a filesystem mounted inside the share is neither entered nor removed, an
 * immutable file is reported, and a rerun after fixing the cause finishes the job.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createHostPaths, type HostPaths } from '@appliance/common';
import { fsAtAddonPath } from '@appliance/fs-at';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TreeDeleteResult, type VerifiedBranch, deleteBranchTrees } from './tree-deleter.ts';

const run = promisify(execFile);
const WALKERS = [
  ...(fsAtAddonPath() === null ? [] : [{ walker: 'native', native: true } as const]),
  { walker: 'js', native: false } as const,
];

let root: string;
let paths: HostPaths;
let disk: LoopDisk;
let mount: string;

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'mount', 'umount', 'chattr'] });
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-xfs-'));
  paths = createHostPaths({ root });
  disk = await createLoopDisk({ sizeBytes: 320 * 1024 * 1024, filesystem: 'xfs', imageDir: root });
  mount = paths.real('/mnt/disk1');
  fs.mkdirSync(mount, { recursive: true });
  await run('mount', [disk.device, mount]);
});

afterAll(async () => {
  if (mount) await run('umount', ['-l', mount]).catch(() => undefined);
  await disk?.destroy().catch(() => undefined);
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A share tree with every kind of entry; returns the files and directories it holds. */
function populate(media: string): { files: number; dirs: number } {
  let files = 0;
  let dirs = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 4; j++) {
      const d = path.join(media, `t${i}`, `s${j}`);
      fs.mkdirSync(d, { recursive: true });
      for (let k = 0; k < 300; k++)
        fs.writeFileSync(path.join(d, `f${k}`), Buffer.alloc(k % 3 === 0 ? 4096 : 0, 1));
      files += 300;
    }
  }
  dirs += 3 + 12;
  let deep = media;
  for (let i = 0; i < 80; i++) {
    deep = path.join(deep, 'd');
    fs.mkdirSync(deep);
    fs.writeFileSync(path.join(deep, 'f'), 'x');
  }
  files += 80;
  dirs += 80;
  const odd = Buffer.concat([Buffer.from(`${media}/`), Buffer.from([0x63, 0x61, 0x66, 0xe9])]);
  fs.mkdirSync(odd);
  fs.writeFileSync(Buffer.concat([odd, Buffer.from('/'), Buffer.from([0xff, 0xfe])]), 'x');
  execFileSync('mkfifo', [path.join(media, 'fifo')]);
  files += 2;
  dirs += 1;
  const appdata = paths.real('/mnt/disk1/appdata');
  fs.symlinkSync(appdata, path.join(media, 'to-appdata'));
  fs.symlinkSync('/', path.join(media, 't0', 'to-root'));
  fs.writeFileSync(path.join(media, 'inner1'), Buffer.alloc(65536, 1));
  fs.linkSync(path.join(media, 'inner1'), path.join(media, 't1', 'inner2'));
  fs.writeFileSync(path.join(media, 'shared'), Buffer.alloc(65536, 2));
  fs.linkSync(path.join(media, 'shared'), path.join(appdata, 'shared'));
  files += 5;
  return { files, dirs };
}

function branch(): VerifiedBranch {
  const real = paths.real('/mnt/disk1/media');
  const st = fs.statSync(real);
  return { disk: '/mnt/disk1', path: '/mnt/disk1/media', realPath: real, dev: st.dev, ino: st.ino };
}

/** Sum of st_blocks × 512 of the non-directories below `dir` with one link (names as bytes). */
function singleLinkBytes(dir: Buffer): number {
  let sum = 0;
  for (const name of fs.readdirSync(dir, { encoding: 'buffer' })) {
    const p = Buffer.concat([dir, Buffer.from('/'), name]);
    const st = fs.lstatSync(p);
    if (st.isDirectory()) sum += singleLinkBytes(p);
    else if (st.nlink === 1) sum += st.blocks * 512;
  }
  return sum;
}

const summary = (r: TreeDeleteResult) => ({
  walker: r.walker,
  branches: r.branches,
  failures: r.failures.listed,
});

describe.each(WALKERS)('deleteBranchTrees on XFS ($walker walker)', ({ walker, native }) => {
  it('deletes everything it may, reports the rest, and a rerun after fixing the causes finishes', async () => {
    const media = paths.real('/mnt/disk1/media');
    const appdata = paths.real('/mnt/disk1/appdata');
    fs.rmSync(media, { recursive: true, force: true });
    fs.rmSync(appdata, { recursive: true, force: true });
    fs.mkdirSync(media, { mode: 0o2775 });
    fs.chmodSync(media, 0o2775);
    fs.mkdirSync(path.join(appdata, 'keep'), { recursive: true });
    fs.writeFileSync(path.join(appdata, 'keep', 'file'), 'precious');
    const expected = populate(media);
    // inner1 and inner2 are both inside: the second removal frees their blocks
    const bytes = singleLinkBytes(Buffer.from(media)) + fs.statSync(path.join(media, 'inner1')).blocks * 512;
    fs.writeFileSync(path.join(media, 't2', 'immutable'), Buffer.alloc(4096, 3));
    await run('chattr', ['+i', path.join(media, 't2', 'immutable')]);
    const inner = path.join(media, 't2', 'mounted');
    fs.mkdirSync(inner);
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', inner]);
    fs.writeFileSync(path.join(inner, 'keep.txt'), 'on another filesystem');
    const failures = [
      { disk: '/mnt/disk1', path: '/mnt/disk1/media/t2/immutable', error: 'EPERM' },
      { disk: '/mnt/disk1', path: '/mnt/disk1/media/t2/mounted', error: 'other_filesystem' },
    ];
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    try {
      const options = { share: 'media', paths, branches: [branch()], native, workers: 2 };
      const dry = await deleteBranchTrees({ ...options, dryRun: true });
      expect(dry.walker).toBe(walker);
      expect(dry.failures.listed.sort(byPath)).toEqual([failures[1]]);
      const real = await deleteBranchTrees({ ...options, dryRun: false });
      expect(real.walker).toBe(walker);
      expect(real.failures.listed.sort(byPath)).toEqual(failures);
      expect(real.branches[0]).toMatchObject({
        // the immutable file stays; t2 and the mount point stay (not empty / other filesystem)
        filesDeleted: expected.files,
        dirsDeleted: expected.dirs - 1,
        bytesFreed: bytes,
      });
      // the dry run counted the immutable file too (it does not try to remove anything)
      expect(dry.branches[0]!.filesDeleted).toBe(expected.files + 1);
      expect(dry.branches[0]!.bytesFreed).toBe(real.branches[0]!.bytesFreed + 4096);
      expect(fs.readFileSync(path.join(appdata, 'keep', 'file'), 'utf8')).toBe('precious');
      expect(fs.readFileSync(path.join(appdata, 'shared')).length).toBe(65536);
      expect(fs.readFileSync(path.join(inner, 'keep.txt'), 'utf8')).toBe('on another filesystem');
      expect(fs.readdirSync(media)).toEqual(['t2']);
      expect(fs.readdirSync(path.join(media, 't2')).sort()).toEqual(['immutable', 'mounted']);
    } finally {
      await run('chattr', ['-i', path.join(media, 't2', 'immutable')]).catch(() => undefined);
      await run('umount', [inner]).catch(() => undefined);
    }
    const rerun = await deleteBranchTrees({
      share: 'media',
      paths,
      branches: [branch()],
      native,
      dryRun: false,
    });
    expect(summary(rerun)).toEqual({
      walker,
      branches: [
        {
          disk: '/mnt/disk1',
          filesDeleted: 1,
          dirsDeleted: 2,
          bytesFreed: 4096,
          failureCount: 0,
          stop: null,
        },
      ],
      failures: [],
    });
    expect(fs.readdirSync(media)).toEqual([]);
    expect(fs.statSync(media).mode & 0o7777).toBe(0o2775);
  });
});
