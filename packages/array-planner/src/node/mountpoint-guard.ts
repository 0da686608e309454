/**
 * The empty directory under a slot's mountpoint refuses writes (issue 32). While a disk is not
 * mounted at `/mnt/diskN`, that path is a plain directory on the system disk: anything written
 * there (through the pool, by an app, by hand) lands where nobody looks, and is hidden under the
 * disk once it is mounted again. `chattr +i` on the empty directory makes every create, rename and
 * delete in it fail with EPERM; mounting over it still works.
 *
 * `guardMountpoint` looks at the directory itself — under the mounted disk when one is mounted,
 * through a non-recursive bind mount of its parent (which shows the parent's filesystem without the
 * mounts on top) — sets the flag when the directory is empty, and says what it holds otherwise.
 * A filesystem that does not support the flag (tmpfs, overlayfs on some kernels, a FUSE root) is
 * reported as `unsupported`: the pool's branch mode is then the only guard (the caller logs it).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CommandRunner, HostPaths } from '@appliance/common';
import { readMounts } from './pool-state.ts';

export interface MountpointGuard {
  /** Logical mountpoint. */
  mountpoint: string;
  /** Something is mounted at the mountpoint (then `entries` are hidden under it). */
  mounted: boolean;
  /** What the directory itself holds (sorted, at most 20 names), and how many entries in all. */
  entries: string[];
  count: number;
  /**
   * `sealed`: empty and immutable now; `not_empty`: left writable (it holds `entries`);
   * `unsupported`: the filesystem under it has no immutable flag; `failed`: see `error`.
   */
  seal: 'sealed' | 'not_empty' | 'unsupported' | 'failed';
  error: string | null;
}

const UNSUPPORTED = /not supported|Inappropriate ioctl/i;

/**
 * Creates the mountpoint directory when missing, then seals it when empty (see above). `scratch`
 * is a private directory for the bind mount (created and removed here).
 */
export async function guardMountpoint(
  runner: CommandRunner,
  paths: HostPaths,
  logical: string,
  o: { scratch: string },
): Promise<MountpointGuard> {
  const target = paths.real(logical);
  const mounted = (await readMounts(paths)).some((m) => m.target === target);
  if (!mounted) {
    await fs.mkdir(target, { recursive: true });
    return { mountpoint: logical, mounted, ...(await sealEmpty(runner, target)) };
  }
  // a non-recursive bind of the parent shows the directory under the mount
  const peek = path.join(o.scratch, `peek-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  await fs.mkdir(peek, { recursive: true });
  try {
    const bind = await runner.run('mount', ['--bind', '--make-private', path.dirname(target), peek], {
      timeoutMs: 30_000,
    });
    if (bind.exitCode !== 0)
      return {
        mountpoint: logical,
        mounted,
        entries: [],
        count: 0,
        seal: 'failed',
        error: `mount --bind ${path.dirname(target)}: ${(bind.stderr || bind.stdout).trim().slice(0, 300)}`,
      };
    try {
      return {
        mountpoint: logical,
        mounted,
        ...(await sealEmpty(runner, path.join(peek, path.basename(target)))),
      };
    } finally {
      const u = await runner.run('umount', [peek], { timeoutMs: 30_000 });
      if (u.exitCode !== 0) await runner.run('umount', ['-l', peek], { timeoutMs: 30_000 });
    }
  } finally {
    await fs.rmdir(peek).catch(() => undefined);
  }
}

async function sealEmpty(
  runner: CommandRunner,
  dir: string,
): Promise<Pick<MountpointGuard, 'entries' | 'count' | 'seal' | 'error'>> {
  const names = (await fs.readdir(dir)).sort();
  if (names.length > 0)
    return { entries: names.slice(0, 20), count: names.length, seal: 'not_empty', error: null };
  const r = await runner.run('chattr', ['+i', dir], { timeoutMs: 10_000 }).catch((err: unknown) => ({
    exitCode: -1,
    stdout: '',
    stderr: err instanceof Error ? err.message : String(err),
  }));
  if (r.exitCode === 0) return { entries: [], count: 0, seal: 'sealed', error: null };
  const text = (r.stderr || r.stdout).trim().slice(0, 300) || `chattr exited with ${r.exitCode}`;
  return { entries: [], count: 0, seal: UNSUPPORTED.test(text) ? 'unsupported' : 'failed', error: text };
}
