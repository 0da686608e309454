/** Private temp directories under `/var/lib/appliance/tmp` (0700), removed on every path. */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HostPaths } from '@appliance/common';

export const tempRoot = (paths: HostPaths): string => path.join(paths.stateDir, 'tmp');

export async function makePrivateTempDir(paths: HostPaths, prefix: string): Promise<string> {
  const root = tempRoot(paths);
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  const dir = await fs.mkdtemp(path.join(root, `${prefix}-`));
  await fs.chmod(dir, 0o700);
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Startup: removes leftovers of a crash (everything under the temp root). */
export async function clearTempRoot(paths: HostPaths): Promise<void> {
  const root = tempRoot(paths);
  const names = await fs.readdir(root).catch(() => [] as string[]);
  for (const name of names) await removeTempDir(path.join(root, name));
}
