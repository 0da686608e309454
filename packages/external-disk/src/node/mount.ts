/**
 * The host side of mount and eject: the mountpoint folder (created 0755, never through a symbolic
 * link, never over files), `mount`/`umount`/`sync`/`findmnt` through the command runner, and the
 * sysfs writes that power a USB disk down.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, type CommandRunner } from '@appliance/common';

/**
 * Makes sure `dir` is a plain empty folder to mount on (created with its parent when missing).
 * A symbolic link, a file, or a folder holding files (they would be hidden) is refused.
 */
export async function prepareMountpoint(dir: string): Promise<{ created: boolean }> {
  await fs.mkdir(path.dirname(dir), { recursive: true, mode: 0o755 });
  const st = await fs.lstat(dir).catch(() => null);
  if (st === null) {
    await fs.mkdir(dir, { mode: 0o755 });
    return { created: true };
  }
  if (st.isSymbolicLink() || !st.isDirectory())
    throw new AppError(
      409,
      'mountpoint_unsafe',
      `The mountpoint ${dir} is ${st.isSymbolicLink() ? 'a symbolic link, which is never followed' : 'not a folder'}: remove it, then mount again.`,
    );
  if ((await fs.readdir(dir)).length > 0)
    throw new AppError(
      409,
      'mountpoint_not_empty',
      `The mountpoint ${dir} holds files (written while no disk was mounted there): move them away, then mount again.`,
    );
  return { created: false };
}

/** Removes the mountpoint folder when it is empty (nothing writes into an unmounted mountpoint). */
export async function removeMountpoint(dir: string): Promise<void> {
  await fs.rmdir(dir).catch(() => undefined);
}

/** The UUID of the filesystem mounted at `dir`, or null. */
export async function mountedUuid(runner: CommandRunner, dir: string): Promise<string | null> {
  const r = await runner.run('findmnt', ['-n', '-r', '-o', 'UUID', '--mountpoint', dir], {
    timeoutMs: 10_000,
  });
  if (r.exitCode !== 0) return null;
  return r.stdout.trim().split('\n').at(-1) || null;
}

/** `realpath /sys/class/block/<name>` (where the disk hangs in the device tree), or null. */
export async function sysfsDevicePath(sysClassBlock: string, kernelName: string): Promise<string | null> {
  return fs.realpath(path.join(sysClassBlock, kernelName)).catch(() => null);
}

export async function writeSysfs(file: string, value: string): Promise<void> {
  await fs.writeFile(file, value);
}
