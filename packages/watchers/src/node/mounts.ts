import fs from 'node:fs/promises';
import path from 'node:path';
import { type MountInfoEntry, parseMountInfo } from '@appliance/common';

/** The mount table (`<procDir>/self/mountinfo`), read fresh: targets are real paths. */
export async function readMountTable(procDir: string): Promise<MountInfoEntry[]> {
  return parseMountInfo(await fs.readFile(path.join(procDir, 'self', 'mountinfo'), 'utf8'));
}

/** The last mount at exactly this real target (the one that is visible), or null. */
export function mountAt(mounts: readonly MountInfoEntry[], realTarget: string): MountInfoEntry | null {
  let found: MountInfoEntry | null = null;
  for (const m of mounts) if (m.target === realTarget) found = m;
  return found;
}
