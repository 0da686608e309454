/**
 * The lab of the disk system tests (03 §16): loop-device disks in an image directory, guard shims
 * for mkfs/wipefs first on the runner's PATH, a logging runner, and the §10 fingerprint.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { type CommandRunner, createCommandRunner } from '@appliance/common';
import { type LoopDisk, createLoopDisk } from '@appliance/lab';

const run = promisify(execFile);
const SYSTEM_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';
const GUARDED = ['wipefs', 'mkfs.xfs', 'mkfs.ext4', 'mkfs.btrfs', 'mkfs.vfat'];

/** Shims that exit 97 for any target but a loop device backed by a file in `imageDir`. */
export async function installGuardShims(dir: string, imageDir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  for (const tool of GUARDED) {
    let real: string | null = null;
    for (const d of SYSTEM_PATH.split(':')) {
      if (
        await fs.access(path.join(d, tool), fs.constants.X_OK).then(
          () => true,
          () => false,
        )
      ) {
        real = path.join(d, tool);
        break;
      }
    }
    if (!real) continue;
    await fs.writeFile(
      path.join(dir, tool),
      `#!/bin/sh
target=""
for a in "$@"; do case "$a" in /dev/*) target="$a";; esac; done
if [ -z "$target" ]; then exec ${real} "$@"; fi
case "$target" in /dev/loop[0-9]*) ;; *) echo "guard shim: refusing to write $target" >&2; exit 97;; esac
back=$(losetup -n -O BACK-FILE "$target" 2>/dev/null)
case "$back" in ${imageDir}/*) exec ${real} "$@";; esac
echo "guard shim: $target is not a lab disk" >&2
exit 97
`,
      { mode: 0o755 },
    );
  }
  return `${dir}:${SYSTEM_PATH}`;
}

/** A runner that records every command it runs. */
export function loggingRunner(pathEnv: string): CommandRunner & { log: string[] } {
  const real = createCommandRunner({ path: pathEnv });
  const log: string[] = [];
  return {
    log,
    resolve: (command) => real.resolve(command),
    run(command, args, options) {
      log.push([command, ...args].join(' '));
      return real.run(command, args, options);
    },
  };
}

export async function loop(
  imageDir: string,
  sizeBytes: number,
  filesystem?: string,
  label?: string,
  partitioned?: boolean,
): Promise<LoopDisk> {
  return createLoopDisk({
    sizeBytes,
    imageDir,
    ...(filesystem ? { filesystem } : {}),
    ...(label ? { label } : {}),
    ...(partitioned ? { partitioned } : {}),
  });
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * SHA-256 of the first and last MiB as they are on the device (`dd iflag=direct`): the block
 * device's page cache may hold pages older than what a mounted filesystem wrote through its own
 * buffers, so a cached read can change later without any new write.
 */
async function directEdges(device: string): Promise<string> {
  const size = Number((await run('blockdev', ['--getsize64', device])).stdout.trim());
  const mib = 1024 * 1024;
  const read = async (skip: number) =>
    (
      await run('dd', [`if=${device}`, 'iflag=direct', 'bs=1M', 'count=1', `skip=${skip}`, 'status=none'], {
        encoding: 'buffer',
        maxBuffer: 4 * mib,
      })
    ).stdout as unknown as Buffer;
  const head = await read(0);
  const tail = await read(Math.max(0, Math.floor(size / mib) - 1));
  return sha(Buffer.concat([head, tail]));
}

/** Write counters (fields 5 and 7 of /sys/class/block/<dev>/stat). */
async function writeCounters(device: string): Promise<string> {
  const f = (await fs.readFile(`/sys/class/block/${path.basename(device)}/stat`, 'utf8')).trim().split(/\s+/);
  return `${f[4]}/${f[6]}`;
}

async function blkid(device: string): Promise<string> {
  return run('blkid', ['-p', '-o', 'export', device]).then(
    (r) => r.stdout,
    (e: { code?: number }) => `exit ${e.code}`,
  );
}

async function tree(
  dir: string,
  out: string[] = [],
  skip: (p: string) => boolean = () => false,
): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (skip(p)) continue;
    const st = await fs.lstat(p);
    out.push(`${p} ${st.size} ${st.mtimeMs}`);
    if (e.isDirectory()) await tree(p, out, skip);
  }
  return out;
}

/**
 * The §10 read-only fingerprint: database dump, per lab device write counters + first/last MiB +
 * `blkid -p`, the mount table lines of the lab, and paths/sizes/mtimes under the sandbox root
 * (SQLite's `-shm` read index excluded: readers touch it by design).
 */
export async function fingerprint(opts: {
  dump: () => string;
  devices: string[];
  root: string;
}): Promise<Record<string, unknown>> {
  const mountinfo = (await fs.readFile('/proc/self/mountinfo', 'utf8'))
    .split('\n')
    .filter((l) => l.includes(opts.root) || opts.devices.some((d) => l.includes(`${d} `)))
    .join('\n');
  const entries = await Promise.all(
    opts.devices.map(async (d): Promise<[string, unknown]> => {
      const exists = await fs.stat(d).then(
        () => true,
        () => false,
      );
      if (!exists) return [d, 'absent'];
      const [w, edge, probe] = await Promise.all([writeCounters(d), directEdges(d), blkid(d)]);
      return [d, { w, edge, blkid: probe }];
    }),
  );
  const devices = Object.fromEntries(entries);
  return {
    db: opts.dump(),
    devices,
    mountinfo,
    tree: await tree(opts.root, [], (p) => p.endsWith('-shm') || p.startsWith(path.join(opts.root, 'mnt'))),
    mnt: await tree(path.join(opts.root, 'mnt'), [], (p) => p.startsWith(path.join(opts.root, 'mnt/user'))),
  };
}

/**
 * Brings the mounted lab XFS filesystems to rest: an idle XFS covers its log by itself within a
 * minute (superblock and log writes no request caused), unless a freeze has just covered it. Run
 * before the "before" fingerprint so that a difference can only come from the call under test.
 */
export async function quiesce(devices: string[]): Promise<void> {
  const lines = (await fs.readFile('/proc/self/mountinfo', 'utf8')).split('\n');
  for (const l of lines) {
    const f = l.split(' ');
    const sep = f.indexOf('-', 6);
    if (sep < 0 || f[sep + 1] !== 'xfs' || !devices.includes(f[sep + 2] ?? '')) continue;
    const target = (f[4] ?? '').replace(/\\040/g, ' ');
    await run('xfs_freeze', ['-f', target]);
    await run('xfs_freeze', ['-u', target]);
  }
}
