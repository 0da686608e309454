/**
 * The walker in-process (no threads): a task path whose directory was swapped for a symbolic link
 * after it was listed (the race between a `split` and its child task) is refused with ELOOP and the
 * link's target is untouched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type FsAt, fsAtAddonPath, loadFsAt } from '@appliance/fs-at';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TreeWalker, type WalkFailure } from './walk.ts';

const addon = fsAtAddonPath();
/** Both walkers: the native `*at` addon (when built) and the pure-JS `/proc/self/fd` fallback. */
const WALKERS: Array<{ walker: string; at: FsAt | null }> = [
  ...(addon === null ? [] : [{ walker: 'native', at: loadFsAt(addon) }]),
  { walker: 'js', at: null },
];

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-walk-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function walker(branch: string, at: FsAt | null, dryRun = false) {
  const st = fs.statSync(branch);
  const failures: WalkFailure[] = [];
  const w = new TreeWalker(
    [{ realPath: branch, logicalPath: '/mnt/disk1/media', disk: '/mnt/disk1', dev: st.dev, ino: st.ino }],
    dryRun,
    new Int32Array(new SharedArrayBuffer(4)),
    { progress: () => undefined, failure: (_b, f) => failures.push(f) },
    at,
  );
  return { w, failures };
}

describe.each(WALKERS)('TreeWalker ($walker walker)', ({ at }) => {
  it('refuses a task directory that became a symbolic link (ELOOP) and never touches its target', () => {
    const branch = path.join(root, 'media');
    const outside = path.join(root, 'outside');
    fs.mkdirSync(branch);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'precious'), 'keep');
    fs.symlinkSync(outside, path.join(branch, 'sub'));
    const { w, failures } = walker(branch, at);
    try {
      const result = w.run({ id: 1, branch: 0, names: ['sub'], mode: 'tree', removeSelf: true });
      expect(result.blocked).toBe(true);
      expect(failures).toEqual([{ disk: '/mnt/disk1', path: '/mnt/disk1/media/sub', error: 'ELOOP' }]);
      expect(fs.readFileSync(path.join(outside, 'precious'), 'utf8')).toBe('keep');
      // the same for an intermediate component of a deeper task path
      const deeper = w.run({ id: 2, branch: 0, names: ['sub', 'x'], mode: 'tree', removeSelf: true });
      expect(deeper.blocked).toBe(true);
      expect(failures.at(-1)).toEqual({ disk: '/mnt/disk1', path: '/mnt/disk1/media/sub', error: 'ELOOP' });
    } finally {
      w.close();
    }
  });

  it('a split task deletes the files of its directory and hands back its subdirectories', () => {
    const branch = path.join(root, 'media');
    fs.mkdirSync(path.join(branch, 'a', 'b'), { recursive: true });
    fs.mkdirSync(path.join(branch, 'c'));
    fs.writeFileSync(path.join(branch, 'f1'), 'x');
    fs.writeFileSync(path.join(branch, 'a', 'f2'), 'x');
    const { w, failures } = walker(branch, at);
    try {
      const split = w.run({ id: 1, branch: 0, names: [], mode: 'split', removeSelf: false });
      expect(split.subdirs.sort()).toEqual(['a', 'c']);
      expect(fs.readdirSync(branch).sort()).toEqual(['a', 'c']);
      for (const name of split.subdirs) {
        expect(w.run({ id: 2, branch: 0, names: [name], mode: 'tree', removeSelf: true }).blocked).toBe(
          false,
        );
      }
      expect(fs.readdirSync(branch)).toEqual([]);
      expect(failures).toEqual([]);
    } finally {
      w.close();
    }
  });
});
