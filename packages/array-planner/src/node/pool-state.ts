import fs from 'node:fs/promises';
import path from 'node:path';
import { type HostPaths, type MountInfoEntry, parseMountInfo } from '@appliance/common';

/** The host's mount table (real targets), read fresh. */
export async function readMounts(paths: HostPaths): Promise<MountInfoEntry[]> {
  return parseMountInfo(
    await fs.readFile(path.join(paths.procDir, 'self', 'mountinfo'), 'utf8').catch(() => ''),
  );
}

/** Whether the mergerfs pool is mounted at `/mnt/user` (the array counts as started then). */
export async function isPoolMounted(paths: HostPaths): Promise<boolean> {
  return (await readMounts(paths)).some(
    (m) => m.target === paths.userPool && m.fsType.startsWith('fuse.mergerfs'),
  );
}

/** Whether something is mounted exactly at a logical mountpoint. */
export async function isMountedAt(paths: HostPaths, logical: string): Promise<boolean> {
  const real = paths.real(logical);
  return (await readMounts(paths)).some((m) => m.target === real);
}
