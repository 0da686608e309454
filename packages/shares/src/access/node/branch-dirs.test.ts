import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHostPaths, type HostPaths, Refusal } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shareBranches } from '../branches.ts';
import { ensureBranchDirectories, usersGid } from './branch-dirs.ts';

let root: string;
let paths: HostPaths;
const disks = [
  { role: 'data' as const, mountpoint: '/mnt/disk1', removalState: null },
  { role: 'data' as const, mountpoint: '/mnt/disk2', removalState: null },
  { role: 'cache' as const, mountpoint: '/mnt/cache', removalState: null },
];

beforeAll(async () => {
  await requirePrerequisites({ root: true });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'branches-'));
  paths = createHostPaths({ root });
  for (const d of ['mnt/disk1', 'mnt/disk2', 'mnt/cache'])
    await fs.mkdir(path.join(root, d), { recursive: true });
});
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('ensureBranchDirectories', () => {
  it('creates the missing branches root:users 0775 and keeps existing ones as they are', async () => {
    await fs.mkdir(path.join(root, 'mnt/disk2/tv'), { mode: 0o700 });
    const result = await ensureBranchDirectories(paths, shareBranches('tv', 'cache-then-move', disks));
    expect(result).toEqual([
      { path: '/mnt/cache/tv', created: true },
      { path: '/mnt/disk1/tv', created: true },
      { path: '/mnt/disk2/tv', created: false },
    ]);
    const st = await fs.stat(path.join(root, 'mnt/disk1/tv'));
    expect(st.mode & 0o7777).toBe(0o775);
    expect([st.uid, st.gid]).toEqual([0, await usersGid('/etc/group')]);
    expect((await fs.stat(path.join(root, 'mnt/disk2/tv'))).mode & 0o777).toBe(0o700);
  });

  it('refuses a symbolic link or a file in the way, creating nothing', async () => {
    await fs.symlink('/etc', path.join(root, 'mnt/disk2/evil'));
    const err = await ensureBranchDirectories(paths, shareBranches('evil', 'cache-then-move', disks)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Refusal);
    expect((err as Refusal).code).toBe('share_branch_unsafe');
    await expect(fs.lstat(path.join(root, 'mnt/cache/evil'))).rejects.toThrow(/ENOENT/);
    await expect(fs.lstat(path.join(root, 'mnt/disk1/evil'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a mountpoint that does not exist instead of creating it', async () => {
    const err = await ensureBranchDirectories(
      paths,
      shareBranches('x', 'array-only', [{ role: 'data', mountpoint: '/mnt/disk9', removalState: null }]),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refusal);
    expect((err as Refusal).code).toBe('branch_disk_unavailable');
    await expect(fs.lstat(path.join(root, 'mnt/disk9'))).rejects.toThrow(/ENOENT/);
  });
});
