/**
 * Helpers of the crash tests (issue 9, `crash.system.test.ts`): the real `appliance serve` as a
 * child process killed with SIGKILL together with the tools it runs (as a kill of the service's
 * cgroup would), polling for the evidence that an operation is in flight,
 * guard shims for the disk-writing tools, a scan for temporary files, and read-only database reads.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { labTargetGuard } from '@appliance/lab';

export {
  descendants,
  killAll,
  type ServeOptions,
  type ServerProcess,
  sleep,
  startServerProcess,
} from '../../test-support/server-process.ts';

export const run = promisify(execFile);

/**
 * A slow step without touching the product: `strace` attached to the server (all its threads)
 * delays every entry into `syscalls` by `delayMs` (fault injection, `-e inject=…:delay_enter=`).
 * Resolves once attached; `detach()` ends it.
 */
export async function slowSyscalls(
  pid: number,
  syscalls: string[],
  delayMs: number,
): Promise<{ detach(): Promise<void> }> {
  const list = syscalls.join(',');
  const child = spawn(
    'strace',
    [
      '-f',
      '-o',
      '/dev/null',
      '-p',
      String(pid),
      '-e',
      `trace=${list}`,
      '-e',
      `inject=${list}:delay_enter=${delayMs * 1000}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`strace did not attach: ${err}`)), 10_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d;
      if (/attached/.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`strace exited: ${err}`));
    });
  });
  return {
    async detach() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

export interface InFlight<T> {
  promise: Promise<T>;
  settled: () => boolean;
}

/** Tracks whether a request has answered. */
export function inFlight<T>(promise: Promise<T>): InFlight<T> {
  let done = false;
  const tracked = promise.then(
    (v) => {
      done = true;
      return v;
    },
    (e: unknown) => {
      done = true;
      throw e;
    },
  );
  tracked.catch(() => undefined);
  return { promise: tracked, settled: () => done };
}

/**
 * Polls `evidence` on every turn of the event loop (so the request keeps flowing) until it holds
 * while the request has not answered; then the caller kills. Throws when the request answered
 * first or the time ran out: the kill point was then not reached, and the test must say so.
 */
export async function waitForKillPoint(
  what: string,
  request: InFlight<unknown>,
  evidence: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await evidence()) {
      if (request.settled()) throw new Error(`kill point "${what}": the request answered before it was seen`);
      return;
    }
    if (request.settled()) {
      const answer = await request.promise.then(
        (v) => JSON.stringify(v).slice(0, 500),
        (e: unknown) => String(e),
      );
      throw new Error(`kill point "${what}" never reached: the request answered first (${answer})`);
    }
    if (Date.now() > end) throw new Error(`kill point "${what}" not reached within ${timeoutMs} ms`);
    await tick();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely, as in testing/sandbox.ts
export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
}

/** One JSON request to the server (the admin token unless `token: null`). */
// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely, as in testing/sandbox.ts
export async function call<T = any>(
  url: string,
  token: string | null,
  method: string,
  apiPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  // A connection of its own: a request sent on a kept-alive socket just as the server's idle timeout
  // (5 s) closes it fails with "other side closed" before the server ever sees it (the setup of a
  // crash case can take that long between two requests on a loaded machine).
  const h: Record<string, string> = { connection: 'close', ...headers };
  if (token) h['authorization'] = `Bearer ${token}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(`${url}/api/v1${apiPath}`, {
    method,
    headers: h,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, text };
}

export const ADMIN_PASSWORD = 'crash test password 1';

/** Creates the admin and an admin token through the API (00 §3); returns the token. */
export async function createAdmin(url: string): Promise<string> {
  const admin = await call(url, null, 'POST', '/setup/admin', {
    username: 'admin',
    password: ADMIN_PASSWORD,
  });
  if (admin.status !== 201) throw new Error(`admin create: ${admin.status} ${admin.text}`);
  const tok = await call<{ token: string }>(
    url,
    null,
    'POST',
    '/tokens',
    { name: 'crash', role: 'admin' },
    { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` },
  );
  if (tok.status !== 201) throw new Error(`token create: ${tok.status} ${tok.text}`);
  return tok.body.token;
}

/** Lab mode through the configuration file the server reads under its root. */
export function writeLabConfig(root: string, imageDir: string): void {
  const dir = path.join(root, 'etc/appliance');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'config.toml'),
    `[lab]\nenabled = true\nimageDir = ${JSON.stringify(imageDir)}\n`,
  );
}

/** Rows of one query on the live database, through a separate read-only connection. */
export function query<T = Record<string, unknown>>(root: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(root, 'var/lib/appliance/state.db'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    db.pragma('busy_timeout = 5000');
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Runs statements on the live database (WAL: the server keeps running). */
export function execute(root: string, statements: (db: Database.Database) => void): void {
  const db = new Database(path.join(root, 'var/lib/appliance/state.db'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    db.transaction(() => statements(db))();
  } finally {
    db.close();
  }
}

/**
 * Names that only a write in flight leaves behind: the atomic-write temp files
 * (`.<file>.<hex>.tmp`), `*.tmp-*` / `*.old-*` copies (catalog, stack files), `*.partial`, and
 * anything inside the private temp root `var/lib/appliance/tmp`. `skip` holds real paths not to
 * enter (mounted lab disks).
 */
export function tempLeftovers(root: string, skip: string[] = []): string[] {
  const found: string[] = [];
  const tempRoot = path.join(root, 'var/lib/appliance/tmp');
  const temp = /(^|\.)tmp($|[-.])|\.old-|\.partial$|\.part$|~$/i;
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (skip.includes(full)) continue;
      const rel = path.relative(root, full);
      if (full !== tempRoot && (full.startsWith(`${tempRoot}/`) || temp.test(e.name))) found.push(rel);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(full);
    }
  };
  walk(root);
  return found.sort();
}

/** `blkid -p -o export <device>` as key/value pairs ({} when no signature is found). */
export async function blkidProbe(device: string): Promise<Record<string, string>> {
  const r = await run('blkid', ['-p', '-o', 'export', device]).catch(
    (e: { code?: number; stdout?: string }) => {
      // exit 2: nothing found
      if (e.code === 2) return { stdout: '' };
      throw e;
    },
  );
  return Object.fromEntries(
    r.stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

export interface ToolShims {
  dir: string;
  /** PATH for the server: the shims first. */
  path: string;
  /** Makes `tool` sleep before (`before`) or after (`after`) running the real one; 0 removes it. */
  pause(tool: string, when: 'before' | 'after', seconds: number): void;
  /**
   * Runs the real `tool` under `strace`, each of its `pwrite64` calls delayed by `ms` (0 removes
   * it): the real tool, writing the real disk, only slower, so it can be killed half-way.
   */
  slowWrites(tool: string, ms: number): void;
  /** Whether the shim of `tool` started / finished the real tool since the last reset(). */
  started(tool: string): boolean;
  finished(tool: string): boolean;
  reset(): void;
}

const WRITERS = ['wipefs', 'blockdev', 'mkfs.xfs', 'mkfs.ext4'];

/**
 * Shims for the disk-writing tools, first on the server's PATH. Like the 03 §16 guard shims they
 * refuse (exit 97) any target that is not a loop device backed by an image inside `labDir`, so a
 * crash test can never write another disk of this machine. They also leave markers (started,
 * finished) and can pause before or after the real tool: the kill points of the format case.
 */
export async function createToolShims(labDir: string, dir: string): Promise<ToolShims> {
  fs.mkdirSync(dir, { recursive: true });
  for (const tool of WRITERS) {
    const real = (
      await run('sh', ['-c', `PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v ${tool}`])
    ).stdout.trim();
    const script = `#!/bin/sh
${labTargetGuard(labDir)}echo "$$ $*" >> ${dir}/${tool}.started
[ -f ${dir}/${tool}.before ] && sleep "$(cat ${dir}/${tool}.before)"
if [ -f ${dir}/${tool}.slow ]; then
  strace -f -qq -o /dev/null -e trace=pwrite64 -e inject=pwrite64:delay_enter="$(cat ${dir}/${tool}.slow)" ${real} "$@"
else
  ${real} "$@"
fi
rc=$?
echo "$rc" >> ${dir}/${tool}.finished
[ -f ${dir}/${tool}.after ] && sleep "$(cat ${dir}/${tool}.after)"
exit $rc
`;
    fs.writeFileSync(path.join(dir, tool), script, { mode: 0o755 });
  }
  return {
    dir,
    path: `${dir}:${process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
    pause(tool, when, seconds) {
      const f = path.join(dir, `${tool}.${when}`);
      if (seconds > 0) fs.writeFileSync(f, String(seconds));
      else fs.rmSync(f, { force: true });
    },
    slowWrites(tool, ms) {
      const f = path.join(dir, `${tool}.slow`);
      if (ms > 0) fs.writeFileSync(f, String(ms * 1000));
      else fs.rmSync(f, { force: true });
    },
    started: (tool) => fs.existsSync(path.join(dir, `${tool}.started`)),
    finished: (tool) => fs.existsSync(path.join(dir, `${tool}.finished`)),
    reset() {
      for (const name of fs.readdirSync(dir))
        if (/\.(started|finished|before|after|slow)$/.test(name)) fs.rmSync(path.join(dir, name));
    },
  };
}
