/**
 * The sandboxed smbd of a root prefix (issue 24): Debian's `smbd`, run by the service itself with the
 * generated smb.conf (`sambaSandboxGlobals`: a loopback port, every Samba directory under the root),
 * so tests and demos serve shares without touching the machine's Samba.
 *
 * It runs in the foreground under `setpriv --pdeathsig TERM`, as one long command of the
 * CommandRunner (its own session): when the service exits in any way, even SIGKILL, the kernel sends
 * smbd SIGTERM and smbd ends with its children. `stop()` sends SIGTERM, waits, and kills whatever is
 * left in smbd's session, so no Samba process outlives the service. If smbd dies on its own while
 * the service runs, it is started again (backing off up to a minute).
 */
import { readFileSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { CommandResult, CommandRunner } from '@appliance/common';
import { type SambaSandboxLayout, sambaSandboxProblem } from '../core/samba-sandbox.ts';
import { smbdPid } from './samba-reload.ts';

export interface SandboxSmbdOptions {
  runner: CommandRunner;
  layout: SambaSandboxLayout;
  /** The root prefix: directories inside it are made searchable for the share users. */
  root: string;
  /** Called after each start (the first and every restart), once smbd accepts connections. */
  onStarted?: (pid: number) => void;
  /** Default 20 s. */
  readyTimeoutMs?: number;
  /** Wait before the n-th restart in a row (n ≥ 1); default 1 s doubling up to a minute. */
  restartDelayMs?: (n: number) => number;
  log?: (level: 'info' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

export interface SandboxSmbd {
  /**
   * Checks the layout and creates Samba's directories (testparm refuses a file naming missing
   * ones, so this runs before the first smb.conf is written). `start` runs it too.
   */
  prepare(): Promise<void>;
  /** Prepares the directories and starts smbd; resolves once it accepts connections on the port. */
  start(): Promise<number>;
  /** Stops smbd and every process of its session; resolves once none is left. */
  stop(): Promise<void>;
  /** The running smbd's pid, or null. */
  pid(): number | null;
}

/** The longest timer Node accepts (~24.8 days); at its end the runner kills smbd and it restarts. */
const FOREVER_MS = 2_147_483_647;
const STOP_GRACE_MS = 10_000;
const MAX_RESTART_DELAY_MS = 60_000;
const defaultRestartDelay = (n: number): number => Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (n - 1));

export function createSandboxSmbd(options: SandboxSmbdOptions): SandboxSmbd {
  const { layout, runner } = options;
  const log = options.log ?? (() => undefined);
  let current: { pid: number; exited: Promise<CommandResult | Error> } | null = null;
  let launching: Promise<number> | null = null;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | null = null;
  let failures = 0;

  /** After an unexpected exit or a failed restart: try again later, backing off up to a minute. */
  const scheduleRestart = (message: string, fields: Record<string, unknown>): void => {
    if (stopping) return;
    failures += 1;
    const delay = (options.restartDelayMs ?? defaultRestartDelay)(failures);
    log('error', message, { ...fields, retryInMs: delay, logs: layout.dirs.log });
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (stopping) return;
      launch().catch((err: unknown) =>
        scheduleRestart('restarting the sandboxed smbd failed', { error: String(err) }),
      );
    }, delay);
    restartTimer.unref();
  };

  const launchOnce = async (): Promise<number> => {
    await assertPortFree(layout.port);
    const exited = runner
      .run(
        'setpriv',
        [
          '--pdeathsig',
          'TERM',
          '--',
          'smbd',
          '--foreground',
          '--no-process-group',
          // its log files before it has read smb.conf too
          `--log-basename=${layout.dirs.log}`,
          '-s',
          layout.smbConf,
        ],
        { timeoutMs: FOREVER_MS },
      )
      .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    let pid: number;
    try {
      pid = await waitReady(layout, exited, options.readyTimeoutMs ?? 20_000);
      if (stopping) throw new Error('the sandboxed smbd was stopped while it started');
    } catch (err) {
      const pidNow = await smbdPid(layout.pidFile);
      if (pidNow !== null && (await isOurs(pidNow, layout.smbConf)))
        await terminate(pidNow, layout.smbConf, exited);
      throw err;
    }
    const startedAt = Date.now();
    current = { pid, exited };
    void exited.then((result) => {
      if (current?.pid !== pid) return;
      current = null;
      if (Date.now() - startedAt > 60_000) failures = 0;
      scheduleRestart('the sandboxed smbd exited; starting it again', { pid, ...describeExit(result) });
    });
    log('info', 'sandboxed smbd listening', { pid, port: layout.port, smbConf: layout.smbConf });
    options.onStarted?.(pid);
    return pid;
  };

  /** One start at a time; `stop` waits for a start in progress. */
  const launch = (): Promise<number> => {
    const run = launchOnce();
    launching = run;
    const clear = () => {
      if (launching === run) launching = null;
    };
    run.then(clear, clear);
    return run;
  };

  const prepare = async (): Promise<void> => {
    const problem = sambaSandboxProblem(layout);
    if (problem) throw new Error(problem);
    await prepareDirectories(layout, options.root);
  };

  return {
    prepare,
    async start() {
      stopping = false;
      failures = 0;
      await prepare();
      // A sandbox smbd left by an earlier run of this root (it cannot outlive its service, but a
      // second service on the same root could have started one): stop it, never share it.
      const stale = await smbdPid(layout.pidFile);
      if (stale !== null && (await isOurs(stale, layout.smbConf))) {
        log('info', 'stopping a sandboxed smbd left by an earlier run', { pid: stale });
        await terminate(stale, layout.smbConf, null);
      }
      return launch();
    },
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      if (launching) await launching.catch(() => undefined);
      const running = current;
      current = null;
      if (running) await terminate(running.pid, layout.smbConf, running.exited);
    },
    pid: () => current?.pid ?? null,
  };
}

/**
 * SIGTERM, a grace period, then SIGKILL to every process left in smbd's session and to any other
 * process started with this smb.conf (a Samba helper in a session of its own, e.g. samba-dcerpcd
 * when an smb.custom.conf turns it back on).
 */
async function terminate(pid: number, smbConf: string, exited: Promise<unknown> | null): Promise<void> {
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_GRACE_MS;
  if (exited) await Promise.race([exited, sleep(STOP_GRACE_MS)]);
  const left = () => [...new Set([...sessionMembers(pid), ...processesUsing(smbConf)])];
  while (left().length > 0 && Date.now() < deadline) await sleep(50);
  for (const p of left()) signal(p, 'SIGKILL');
  const hard = Date.now() + 5_000;
  while (left().length > 0 && Date.now() < hard) await sleep(20);
  if (exited) await Promise.race([exited, sleep(1_000)]);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Live (not zombie) processes whose session id is `sid` (the runner starts each tool in its own). */
export function sessionMembers(sid: number): number[] {
  return livePids().filter((pid) => readStat(pid)?.session === sid);
}

/** Live processes started with this smb.conf (`-s FILE`, `--configfile=FILE`). */
export function processesUsing(smbConf: string): number[] {
  return livePids().filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args.includes(smbConf) || args.includes(`--configfile=${smbConf}`);
    } catch {
      return false;
    }
  });
}

function livePids(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      const stat = readStat(pid);
      return stat !== null && stat.state !== 'Z';
    });
}

function readStat(pid: number): { state: string; session: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '', session: Number(rest[3]) };
  } catch {
    return null;
  }
}

/** Whether `pid` is an smbd started with this smb.conf (and not some other process reusing the pid). */
async function isOurs(pid: number, smbConf: string): Promise<boolean> {
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const args = cmdline.split('\0');
  return args.some((a) => /(^|\/)smbd$/.test(a)) && args.includes(smbConf);
}

/**
 * Samba's directories (private 0700, the others 0755), and search permission for others on every
 * directory of the root prefix above the share pool: smbd opens a user's share as that user.
 * A directory above the root that others cannot search is refused (the service does not change it).
 */
export async function prepareDirectories(layout: SambaSandboxLayout, root: string): Promise<void> {
  for (const [key, dir] of Object.entries(layout.dirs)) {
    const mode = key === 'private' ? 0o700 : 0o755;
    await fs.mkdir(dir, { recursive: true, mode });
    await fs.chmod(dir, mode);
  }
  const parts = path.resolve(layout.poolDir).split('/').filter(Boolean);
  let dir = '/';
  for (const part of ['', ...parts]) {
    dir = part === '' ? '/' : path.join(dir, part);
    const st = await fs.stat(dir).catch(() => null);
    if (!st) return;
    if (st.mode & 0o001) continue;
    const inside = dir === root || dir.startsWith(`${root}/`);
    if (!inside)
      throw new Error(
        `smbd opens each share as its user, so every directory above the share pool must be searchable by others; ${dir} is not: run chmod o+x ${dir} or choose a root prefix elsewhere.`,
      );
    await fs.chmod(dir, (st.mode & 0o7777) | 0o001);
  }
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `Port ${port} on 127.0.0.1 is in use: choose another samba.port for the sandboxed smbd.`
            : `Port ${port} on 127.0.0.1 cannot be used for the sandboxed smbd: ${err.message}`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

/** Resolves with smbd's pid once the pid file names it and the port accepts a connection. */
async function waitReady(
  layout: SambaSandboxLayout,
  exited: Promise<CommandResult | Error>,
  timeoutMs: number,
): Promise<number> {
  let ended: CommandResult | Error | null = null;
  void exited.then((r) => {
    ended = r;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ended) {
      const exit = describeExit(ended);
      throw new Error(
        `smbd exited before accepting connections (${JSON.stringify(exit)}); its log is in ${layout.dirs.log}.`,
      );
    }
    const pid = await smbdPid(layout.pidFile);
    if (pid !== null && (await isOurs(pid, layout.smbConf)) && (await accepts(layout.port))) return pid;
    await sleep(50);
  }
  throw new Error(
    `smbd did not accept connections on 127.0.0.1:${layout.port} within ${timeoutMs} ms; its log is in ${layout.dirs.log}.`,
  );
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

function describeExit(result: CommandResult | Error): Record<string, unknown> {
  if (result instanceof Error) return { error: result.message };
  return {
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    stderr: result.stderr.trim().slice(-500),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
