/** GPU render devices, the render group and the host time zone, read through HostPaths. */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HostPaths } from '@appliance/common';

/** `/dev/dri/renderD<n>` (logical paths), sorted by n; none without `/dev/dri`. */
export async function readRenderDevices(paths: HostPaths): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(path.join(paths.devDir, 'dri'));
  } catch {
    return [];
  }
  return names
    .map((n) => /^renderD(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => `/dev/dri/${m[0]}`);
}

/** Numeric id of group `render` in the host's group file; null when absent or unreadable. */
export async function readRenderGroup(paths: HostPaths): Promise<number | null> {
  let text: string;
  try {
    text = await fs.readFile(paths.etcGroup, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const [name, , gid] = line.split(':');
    if (name === 'render' && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return null;
}

/** `/etc/timezone`, else the `zoneinfo/` target of `/etc/localtime`, else null. */
export async function readHostZone(paths: HostPaths): Promise<string | null> {
  const etc = path.dirname(paths.etcGroup);
  try {
    const zone = (await fs.readFile(path.join(etc, 'timezone'), 'utf8')).trim();
    if (zone) return zone;
  } catch {
    // fall through
  }
  try {
    const target = await fs.readlink(path.join(etc, 'localtime'));
    const i = target.indexOf('zoneinfo/');
    if (i >= 0) return target.slice(i + 'zoneinfo/'.length);
  } catch {
    // none
  }
  return null;
}
