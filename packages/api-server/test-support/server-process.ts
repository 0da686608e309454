/**
 * The real service as a child process for process-level tests (server, crash tests): its launcher
 * (`appliance-server`, src/launcher.ts) in its own process group on loopback with a Unix socket,
 * resolved once it prints its "listening" line. `kill()` is a crash: the server is frozen, then
 * it and every process below it get SIGKILL (see killTree); `stop()` is a graceful SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const LAUNCHER = path.join(import.meta.dirname, '..', 'src', 'launcher.ts');

export interface ServerProcess {
  pid: number;
  url: string;
  child: ChildProcess;
  /** Everything the process wrote on stdout and stderr so far. */
  output(): string;
  /** SIGKILL to the whole process group (the server and every tool it runs); resolves on exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful); resolves with the exit code. */
  stop(): Promise<number | null>;
}

const live = new Set<ServerProcess>();

/** Every server process still running (for afterAll). */
export async function killAll(): Promise<void> {
  for (const p of [...live]) await p.kill();
}

export interface ServeOptions {
  root: string;
  socket: string;
  /** Extra environment (PATH, DOCKER_HOST …); the server gets only these and PATH/HOME. */
  env?: Record<string, string>;
}

/** `node --conditions=@appliance/source launcher.ts --root … --listen 127.0.0.1:0 --socket …`. */
export async function startServerProcess(options: ServeOptions): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@appliance/source',
      LAUNCHER,
      '--root',
      options.root,
      '--listen',
      '127.0.0.1:0',
      '--socket',
      options.socket,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, apart from the test runner's.
      detached: true,
      env: { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/root', ...options.env },
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 30 s:\n${out}`)), 30_000);
    const onData = () => {
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(JSON.parse(line).url as string);
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${out}`));
    });
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const proc: ServerProcess = {
    pid: child.pid!,
    url,
    child,
    output: () => out,
    async kill() {
      live.delete(proc);
      await killTree(child.pid!);
      if (!gone) await exited;
    },
    async stop() {
      live.delete(proc);
      if (gone) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
  };
  live.add(proc);
  return proc;
}

/**
 * The crash: the server is frozen (SIGSTOP, so it spawns nothing more), then it and every process
 * below it get SIGKILL, each tool's own process group included (the command runner starts every
 * tool in a new session). This is what a kill of the service's cgroup does; the tools do not
 * outlive the service and finish its work behind the restarted server's back.
 */
async function killTree(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGSTOP');
  } catch {
    return; // already gone
  }
  const victims = descendants(pid);
  for (const d of victims) {
    for (const target of [-d.pid, d.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* not a group leader, or gone */
      }
    }
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    process.kill(pid, 'SIGKILL');
  }
  const end = Date.now() + 10_000;
  while (victims.some((d) => alive(d.pid))) {
    if (Date.now() > end)
      throw new Error(`processes survived SIGKILL: ${victims.map((d) => d.pid).join(', ')}`);
    await sleep(20);
  }
}

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every live process below `pid` (children, grandchildren …) with its command name. */
export function descendants(pid: number): Array<{ pid: number; comm: string }> {
  const parent = new Map<number, { ppid: number; comm: string }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] === 'Z') continue;
      parent.set(Number(name), {
        ppid: Number(rest[1]),
        comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      });
    } catch {
      /* exited meanwhile */
    }
  }
  const out: Array<{ pid: number; comm: string }> = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    for (const [child, info] of parent) {
      if (info.ppid !== p) continue;
      out.push({ pid: child, comm: info.comm });
      queue.push(child);
    }
  }
  return out;
}
