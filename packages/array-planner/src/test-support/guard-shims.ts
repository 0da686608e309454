import fs from 'node:fs/promises';
import path from 'node:path';

const GUARDED = ['wipefs', 'mkfs.xfs', 'mkfs.ext4', 'mkfs.btrfs', 'mkfs.vfat', 'mkfs.exfat'];
const SYSTEM_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

async function which(tool: string): Promise<string> {
  for (const dir of SYSTEM_PATH.split(':')) {
    const file = path.join(dir, tool);
    if (
      await fs.access(file, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  }
  throw new Error(`the host tool ${tool} is missing`);
}

/**
 * Guard shims for `mkfs.*` and `wipefs` (03 §16): placed first on the runner's PATH, they exit 97
 * for any device target but a loop device backed by a file in `imageDir`, so a wrong test can
 * never format a real disk. Returns the PATH to hand to createCommandRunner.
 */
export async function installGuardShims(dir: string, imageDir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  for (const tool of GUARDED) {
    const real = await which(tool).catch(() => null);
    if (real === null) continue;
    const script = `#!/bin/sh
# test guard shim: only lab loop devices backed by ${imageDir} may be written
target=""
for a in "$@"; do case "$a" in /dev/*) target="$a";; esac; done
if [ -z "$target" ]; then exec ${real} "$@"; fi
case "$target" in /dev/loop[0-9]*) ;; *) echo "guard shim: refusing to write $target" >&2; exit 97;; esac
back=$(/usr/sbin/losetup -n -O BACK-FILE "$target" 2>/dev/null || /sbin/losetup -n -O BACK-FILE "$target" 2>/dev/null)
case "$back" in ${imageDir}/*) exec ${real} "$@";; esac
echo "guard shim: $target is not a lab disk ($back)" >&2
exit 97
`;
    await fs.writeFile(path.join(dir, tool), script, { mode: 0o755 });
  }
  return `${dir}:${SYSTEM_PATH}`;
}
