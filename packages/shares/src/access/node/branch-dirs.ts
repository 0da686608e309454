/**
 * Creates the missing branch directories of a share (08 §6): owner root, group `users`, mode 0775.
 * Existing directories are kept as they are. Nothing is created through a symbolic link or on a
 * mountpoint that does not exist (that would write to the boot disk instead of the array disk).
 */
import fs from 'node:fs/promises';
import type { HostPaths } from '@appliance/common';
import type { ShareBranch } from '../branches.ts';
import { branchDiskMissing, branchUnsafe } from '../errors.ts';

export interface BranchDirResult {
  path: string;
  created: boolean;
}

export async function ensureBranchDirectories(
  paths: HostPaths,
  branches: readonly ShareBranch[],
): Promise<BranchDirResult[]> {
  // Check every branch before creating any, so a refusal creates nothing.
  const plan: Array<{ branch: ShareBranch; exists: boolean }> = [];
  for (const branch of branches) {
    const mount = await lstatOrNull(paths.real(branch.disk));
    if (!mount?.isDirectory()) throw branchDiskMissing(branch.disk);
    const existing = await lstatOrNull(paths.real(branch.path));
    if (existing && !existing.isDirectory()) {
      throw branchUnsafe(
        branch.path,
        existing.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a directory',
      );
    }
    plan.push({ branch, exists: existing !== null });
  }
  const gid = await usersGid(paths.etcGroup);
  const results: BranchDirResult[] = [];
  for (const { branch, exists } of plan) {
    if (!exists) {
      const real = paths.real(branch.path);
      try {
        await fs.mkdir(real, { mode: 0o775 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const again = await fs.lstat(real);
        if (!again.isDirectory()) throw branchUnsafe(branch.path, 'it is not a directory');
        results.push({ path: branch.path, created: false });
        continue;
      }
      if (process.getuid?.() === 0) await fs.chown(real, 0, gid);
      await fs.chmod(real, 0o775);
    }
    results.push({ path: branch.path, created: !exists });
  }
  return results;
}

/** The gid of the `users` group from the host's group database (Debian's is 100). */
export async function usersGid(groupFile: string): Promise<number> {
  const text = await fs.readFile(groupFile, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const [name, , gid] = line.split(':');
    if (name === 'users' && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return 100;
}

async function lstatOrNull(p: string): Promise<import('node:fs').Stats | null> {
  try {
    return await fs.lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
