/**
 * A real array for parity and disk-job system tests: loop disks in a private image directory, the
 * guard shims first on the runner's PATH (mkfs/wipefs refuse anything but this lab's disks), the
 * real server in lab mode with a clock the test can move, and the array set up through the API
 * (xfs, mounted, mergerfs pool, snapraid.conf).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Clock, erasePhrase } from '@appliance/common';
import { type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { removeSandboxRoot, type Sandbox, startSandbox } from './sandbox.ts';
import { installGuardShims, loggingRunner, loop } from './disks/lab.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** A clock that runs with real time, shifted by what the test adds (`advance`). */
export function shiftedClock(): Clock & { advance(ms: number): void; setTo(at: Date): void } {
  let shift = 0;
  return {
    now: () => new Date(Date.now() + shift),
    advance(ms) {
      shift += ms;
    },
    setTo(at) {
      shift = at.getTime() - Date.now();
    },
  };
}

export interface LabArray {
  s: Sandbox;
  work: string;
  imageDir: string;
  clock: ReturnType<typeof shiftedClock>;
  runner: ReturnType<typeof loggingRunner>;
  /** parity first, then the data disks. */
  disks: { parity: LoopDisk; data: LoopDisk[] };
  /** Real path of a logical path (`/mnt/disk1/x` → `<root>/mnt/disk1/x`). */
  real(logical: string): string;
  /** Unmounts everything under the sandbox root, closes the server, detaches the disks. */
  destroy(): Promise<void>;
}

export const LAB_TOOLS = [
  'losetup',
  'wipefs',
  'mkfs.xfs',
  'blkid',
  'mount',
  'umount',
  'findmnt',
  'mergerfs',
  'snapraid',
  'setpriv',
];

export async function createLabArray(options: {
  dataDisks: number;
  paritySizeMiB: number;
  dataSizeMiB: number;
  /** Spare (unformatted) disks to attach as well, in MiB. */
  spares?: number[];
  /** A cache disk of this size (MiB), a pool branch before the data disks. */
  cacheSizeMiB?: number;
  /** Set the array up through the API (default true; false: the disks stay blank, e.g. for the UI). */
  setup?: boolean;
  /** Create the admin and its token (default true; false: a first-run service). */
  admin?: boolean;
}): Promise<LabArray & { spares: LoopDisk[]; cache: LoopDisk | null }> {
  await requirePrerequisites({ root: true, tools: LAB_TOOLS });
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-array-'));
  const imageDir = path.join(work, 'images');
  await fs.mkdir(imageDir);
  const runner = loggingRunner(await installGuardShims(path.join(work, 'shims'), imageDir));
  const parity = await loop(imageDir, options.paritySizeMiB * MiB);
  const data: LoopDisk[] = [];
  for (let i = 0; i < options.dataDisks; i++) data.push(await loop(imageDir, options.dataSizeMiB * MiB));
  const cache = options.cacheSizeMiB ? await loop(imageDir, options.cacheSizeMiB * MiB) : null;
  const spares: LoopDisk[] = [];
  for (const size of options.spares ?? []) spares.push(await loop(imageDir, size * MiB));
  const clock = shiftedClock();
  const s = await startSandbox({
    lab: true,
    config: { lab: { enabled: true, imageDir } },
    start: { runner, clock, scheduler: false },
    ...(options.admin === false ? { admin: false } : {}),
  });
  const members = [parity, ...data, ...(cache ? [cache] : [])];
  const r =
    options.setup === false
      ? { status: 201, text: '' }
      : await s.call('POST', '/disks/array', {
          disks: [
            { device: parity.device, role: 'parity' },
            ...data.map((d) => ({ device: d.device, role: 'data' })),
            ...(cache ? [{ device: cache.device, role: 'cache' }] : []),
          ],
          confirmation: erasePhrase(members.map((m) => m.device)),
        });
  if (r.status !== 201) throw new Error(`array setup failed: ${r.status} ${r.text}`);
  const real = (logical: string) => path.join(s.root, logical);
  return {
    s,
    work,
    imageDir,
    clock,
    runner,
    disks: { parity, data },
    spares,
    cache,
    real,
    async destroy() {
      await unmountUnder(s.root);
      await s.close().catch(() => undefined);
      // also after a close({keepRoot}) (crash tests): the immutable mountpoints come off first
      try {
        removeSandboxRoot(s.root);
      } catch {
        // something is still mounted under it: left for the look (as a failed close leaves it)
      }
      for (const d of [...members, ...spares]) await d.destroy().catch(() => undefined);
      await fs.rm(work, { recursive: true, force: true });
    },
  };
}

/** Unmounts every mount below `root`, deepest first (the pool before its branches). */
export async function unmountUnder(root: string): Promise<void> {
  const info = await fs.readFile('/proc/self/mountinfo', 'utf8');
  const targets = info
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((t) => t.startsWith(`${root}/`))
    .sort((a, b) => b.length - a.length);
  for (const t of targets)
    await run('umount', [t]).catch(() => run('umount', ['-l', t]).catch(() => undefined));
}

/** Writes `count` files of random bytes under `dir` (nested a little); returns path → SHA-256. */
export async function writeFiles(
  dir: string,
  count: number,
  size: (i: number) => number,
  prefix = 'f',
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const rel = path.join(`set${i % 7}`, `sub${i % 3}`, `${prefix}${i}.bin`);
    const file = path.join(dir, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const buf = randomBytes(size(i));
    await fs.writeFile(file, buf);
    out.set(rel, createHash('sha256').update(buf).digest('hex'));
  }
  return out;
}

export const sha256File = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/** Polls `check` every 50 ms until it returns a value that is not undefined, or throws at the timeout. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for a job to end and returns it (GET /jobs/:id). */
export async function waitJob(s: Sandbox, id: string, timeoutMs = 300_000) {
  return eventually(async () => {
    const r = await s.call('GET', `/jobs/${id}`);
    if (r.status !== 200) throw new Error(`GET /jobs/${id}: ${r.status} ${r.text}`);
    return ['queued', 'running'].includes(r.body.state) ? undefined : r.body;
  }, timeoutMs);
}

/** Processes whose command line mentions `needle` (e.g. this lab's snapraid.conf). */
export async function processesWith(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const p of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const cmd = await fs.readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(needle) && !cmd.includes('vitest')) pids.push(Number(p));
  }
  return pids;
}
