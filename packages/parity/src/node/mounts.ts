/** Whether a directory is a mount point now (from /proc/self/mountinfo), for a `SlotsReader`. */
import fs from 'node:fs/promises';
import path from 'node:path';

/** mountinfo escapes space, tab, newline and backslash as `\ooo`. */
const unescapeField = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** The mount points listed in a mountinfo text (field 5 of each line). */
export function mountPoints(mountinfo: string): string[] {
  return mountinfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((f): f is string => f !== undefined && f !== '')
    .map(unescapeField);
}

/** Whether `dir` (a real path) is a mount point now. */
export async function isMountPoint(dir: string, mountinfo = '/proc/self/mountinfo'): Promise<boolean> {
  const target = path.resolve(dir);
  return mountPoints(await fs.readFile(mountinfo, 'utf8')).includes(target);
}
