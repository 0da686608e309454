/**
 * A file tree for the disk-job system tests, and its fingerprint: contents (SHA-256), type, mode,
 * owner, modification time (nanoseconds), symlink targets, hard-link groups and the extended
 * attributes of the `user.` namespace — everything a rebuilt or copied disk must give back.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Entry {
  type: 'file' | 'dir' | 'symlink';
  sha256?: string;
  mode: number;
  uid: number;
  gid: number;
  mtimeNs?: bigint;
  target?: string;
  /** Another path of the same inode (hard link), the first in sort order. */
  linkOf?: string;
  xattrs?: Record<string, string>;
}

const OWNERS = [
  [0, 0],
  [1000, 1000],
  [1001, 100],
  [1002, 1002],
] as const;
const MODES = [0o644, 0o600, 0o640, 0o755, 0o444] as const;

/**
 * Writes `count` files of random sizes (up to `maxBytes`) through `dir` (the pool: they spread over
 * the disks), nested three levels, with varied owners and modes; returns their relative paths.
 */
export async function writeTree(
  dir: string,
  count: number,
  maxBytes: number,
  prefix = 't',
): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const rel = path.join(`${prefix}${i % 5}`, `lvl${i % 4}`, `deep${i % 3}`, `file-${i}.bin`);
    const file = path.join(dir, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, randomBytes(1 + ((i * 7919) % maxBytes)));
    const [uid, gid] = OWNERS[i % OWNERS.length]!;
    await fs.chown(file, uid, gid);
    await fs.chmod(file, MODES[i % MODES.length]!);
    out.push(rel);
  }
  await fs.chmod(path.join(dir, `${prefix}1`), 0o750).catch(() => undefined);
  return out;
}

/** The special entries, written straight onto one disk: a hard link, a symlink, an xattr, a setgid dir. */
export async function writeSpecials(diskDir: string): Promise<void> {
  const d = path.join(diskDir, 'special', 'inner dir');
  await fs.mkdir(d, { recursive: true });
  await fs.writeFile(path.join(d, 'original.txt'), randomBytes(50_000));
  await fs.link(path.join(d, 'original.txt'), path.join(diskDir, 'special', 'hardlink.txt'));
  await fs.symlink('inner dir/original.txt', path.join(diskDir, 'special', 'symlink'));
  await fs.writeFile(path.join(d, 'tagged.bin'), randomBytes(12_345));
  await run('setfattr', ['-n', 'user.note', '-v', 'keep me', path.join(d, 'tagged.bin')]);
  await fs.chown(path.join(d, 'tagged.bin'), 1003, 1003);
  await fs.chmod(path.join(d, 'tagged.bin'), 0o640);
  await fs.chmod(path.join(diskDir, 'special'), 0o2775);
  await fs.chown(path.join(diskDir, 'special'), 0, 100);
}

async function xattrs(file: string): Promise<Record<string, string>> {
  const r = await run('getfattr', ['-h', '-d', '-m', '^user\\.', '--absolute-names', file]).catch(() => ({
    stdout: '',
  }));
  const out: Record<string, string> = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^(user\.[^=]+)="(.*)"$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** Every entry under `dir` (relative paths), skipping SnapRAID's content file and `skip`. */
export async function snapshot(
  dir: string,
  o: { skip?: (rel: string) => boolean; withXattrs?: boolean } = {},
): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const inodes = new Map<bigint, string>();
  const walk = async (rel: string) => {
    const names = (await fs.readdir(path.join(dir, rel))).sort();
    for (const name of names) {
      const r = rel ? path.join(rel, name) : name;
      if (name === '.snapraid.content' || name === 'lost+found' || o.skip?.(r)) continue;
      const full = path.join(dir, r);
      const st = await fs.lstat(full, { bigint: true });
      const base = { mode: Number(st.mode & 0o7777n), uid: Number(st.uid), gid: Number(st.gid) };
      if (st.isSymbolicLink()) {
        out.set(r, { type: 'symlink', ...base, target: await fs.readlink(full) });
      } else if (st.isDirectory()) {
        out.set(r, { type: 'dir', ...base });
        await walk(r);
      } else {
        const e: Entry = {
          type: 'file',
          ...base,
          sha256: createHash('sha256')
            .update(await fs.readFile(full))
            .digest('hex'),
          mtimeNs: st.mtimeNs,
        };
        if (st.nlink > 1n) {
          const first = inodes.get(st.ino);
          if (first) e.linkOf = first;
          else inodes.set(st.ino, r);
        }
        if (o.withXattrs) {
          const x = await xattrs(full);
          if (Object.keys(x).length > 0) e.xattrs = x;
        }
        out.set(r, e);
      }
    }
  };
  await walk('');
  return out;
}

/** Entries whose fingerprint differs (or that are missing / extra): `[]` when the trees match. */
export function differences(
  expected: Map<string, Entry>,
  actual: Map<string, Entry>,
  o: { dirModes?: boolean } = {},
): string[] {
  const out: string[] = [];
  const show = (e: unknown) => JSON.stringify(e, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  const cmp = (x: Entry | undefined) => (x && x.type === 'dir' && !o.dirModes ? { type: 'dir' } : x);
  for (const [rel, e] of expected) {
    const a = actual.get(rel);
    if (show(cmp(a)) !== show(cmp(e))) out.push(`${rel}: expected ${show(e)}, got ${show(a)}`);
  }
  for (const rel of actual.keys()) if (!expected.has(rel)) out.push(`${rel}: unexpected`);
  return out;
}

/** Follows `GET /events` over HTTP; `progress(jobId)` lists the progress payloads of one job. */
export async function followEvents(url: string, token: string) {
  const text: string[] = [];
  let req: http.ClientRequest | null = null;
  await new Promise<void>((resolve, reject) => {
    req = http.get(`${url}/api/v1/events`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.on('data', (d: Buffer) => text.push(d.toString()));
      resolve();
    });
    req.on('error', reject);
  });
  return {
    progress(jobId: string): Array<Record<string, unknown>> {
      const out: Array<Record<string, unknown>> = [];
      for (const block of text.join('').split('\n\n')) {
        if (!block.includes('event: progress')) continue;
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        const e = JSON.parse(data.slice(6)) as { operationId: string; progress?: Record<string, unknown> };
        if (e.operationId === jobId) out.push({ ...e.progress, done: (e as { done?: boolean }).done });
      }
      return out;
    },
    close: () => (req as http.ClientRequest | null)?.destroy(),
  };
}

/**
 * A reader in its own process (its own event loop: the server under test cannot delay it) that
 * stats every one of `files` every `everyMs` until `stop()`, which answers how many stats it made
 * and every one that failed (time, path, error code).
 */
export function startStatReader(
  files: readonly string[],
  everyMs = 10,
): {
  stop(): Promise<{
    stats: number;
    rounds: number;
    failures: Array<{ at: string; file: string; code: string }>;
  }>;
} {
  const script = `
const fs = require('node:fs');
const files = JSON.parse(process.argv[1]);
const every = Number(process.argv[2]);
let stats = 0, rounds = 0;
const failures = [];
const timer = setInterval(() => {
  rounds++;
  for (const f of files) {
    try { fs.statSync(f); stats++; }
    catch (e) { failures.push({ at: new Date().toISOString(), file: f, code: String(e.code) }); }
  }
}, every);
process.on('SIGTERM', () => {
  clearInterval(timer);
  process.stdout.write(JSON.stringify({ stats, rounds, failures: failures.slice(0, 200) }), () => process.exit(0));
});
`;
  const child = spawn(process.execPath, ['-e', script, JSON.stringify(files), String(everyMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(out);
    },
  };
}
