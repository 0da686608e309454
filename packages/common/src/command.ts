import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from './errors.ts';
import { HOST_TOOLS, LAB_TOOL_PACKAGES } from './host-tools.ts';

export interface RunOptions {
  /**
   * Milliseconds before the command is killed (its whole process group, SIGKILL). Default 60 s.
   * `null`: no timeout (a parity sync may run for hours); such a run is ended through `signal`.
   */
  timeoutMs?: number | null;
  /** Written to stdin (e.g. a password); never logged. */
  input?: string | Uint8Array;
  /** Added to the fixed environment (`PATH` and `LC_ALL` only by default). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Return stdout as bytes instead of text. */
  encoding?: 'utf8' | 'buffer';
  /**
   * Streams the output line by line as it comes (a line ends at `\n` or `\r`, so progress lines
   * that rewrite themselves arrive one by one). With it, `stdout`/`stderr` of the result keep only
   * their last 64 KiB: a long run's output is never held in memory whole.
   */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /**
   * Cancels the run: `killSignal` goes to the tool's process group, then SIGKILL after
   * `killGraceMs` if it has not exited. The result says `cancelled: true`.
   */
  signal?: AbortSignal;
  /** Default SIGTERM. SnapRAID stops cleanly on SIGINT (it saves its state first). */
  killSignal?: NodeJS.Signals;
  /** Default 30 s. */
  killGraceMs?: number;
  /** Called with the tool's process id once it started (jobs record it to find a leftover later). */
  onSpawn?: (pid: number) => void;
}

export interface CommandResult {
  command: string;
  args: readonly string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Ended through `RunOptions.signal`. */
  cancelled?: boolean;
}

/**
 * Runs host tools as argument lists (never through a shell) with a timeout and the fixed
 * environment of 09 (`LC_ALL=C`, `PATH=/usr/sbin:/usr/bin:/sbin:/bin`). A non-zero exit is a
 * result, not an exception; a missing tool is `501 not_configured` naming the Debian package.
 * `resolve` answers "is this tool installed" with the very lookup `run` uses, so a check made
 * before a write can never pass for a tool the run then does not find.
 */
export interface CommandRunner {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
  /** The executable `run` would start for `command`, or null when it is not installed. */
  resolve(command: string): Promise<string | null>;
}

/** The PATH every host command runs with (09 "Host tools"), whatever the service inherited. */
export const HOST_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/** Debian package that ships each tool the service drives (host-tools.ts) or the lab runs. */
export const DEBIAN_PACKAGE: Record<string, string> = {
  ...Object.fromEntries(HOST_TOOLS.map((h) => [h.tool, h.package])),
  ...LAB_TOOL_PACKAGES,
};

export const missingTool = (command: string): AppError => {
  const pkg = DEBIAN_PACKAGE[command];
  return new AppError(
    501,
    'not_configured',
    pkg
      ? `The host tool ${command} is not installed: install the Debian package ${pkg} (apt-get install ${pkg}).`
      : `The host tool ${command} is not installed on this machine.`,
    { tool: command, ...(pkg ? { package: pkg } : {}) },
  );
};

/**
 * The real runner. `path` replaces the fixed PATH (tests put guard shims first); nothing of the
 * service's own environment reaches a tool but what `RunOptions.env` adds.
 */
export function createCommandRunner(defaults: { timeoutMs?: number; path?: string } = {}): CommandRunner {
  const searchPath = defaults.path ?? HOST_PATH;
  const dirs = searchPath.split(':').filter((d) => d !== '');
  const resolve = async (command: string): Promise<string | null> => {
    if (command.includes('/')) return (await isExecutableFile(command)) ? command : null;
    for (const dir of dirs) {
      const candidate = path.join(dir, command);
      if (await isExecutableFile(candidate)) return candidate;
    }
    return null;
  };
  return {
    resolve,
    async run(command, args, options = {}) {
      const executable = await resolve(command);
      if (executable === null) throw missingTool(command);
      const env: Record<string, string> = { PATH: searchPath, LC_ALL: 'C' };
      for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
      const timeoutMs = options.timeoutMs === undefined ? (defaults.timeoutMs ?? 60_000) : options.timeoutMs;
      return spawnTool(command, executable, args, env, timeoutMs, options);
    },
  };
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

const TAIL_BYTES = 64 * 1024;

function spawnTool(
  command: string,
  executable: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number | null,
  options: RunOptions,
): Promise<CommandResult> {
  return new Promise<CommandResult>((resolve, reject) => {
    // Its own process group, so a timeout or a cancel reaches the tool and everything it started.
    const child = spawn(executable, [...args], {
      argv0: command,
      env,
      cwd: options.cwd,
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const streaming = options.onLine !== undefined;
    const out = new OutputBuffer(streaming ? TAIL_BYTES : null);
    const err = new OutputBuffer(streaming ? TAIL_BYTES : null);
    const lines = { stdout: '', stderr: '' };
    let timedOut = false;
    let cancelled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
    };
    const timer =
      timeoutMs === null
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup('SIGKILL');
          }, timeoutMs);
    const onAbort = () => {
      if (cancelled) return;
      cancelled = true;
      killGroup(options.killSignal ?? 'SIGTERM');
      graceTimer = setTimeout(() => killGroup('SIGKILL'), options.killGraceMs ?? 30_000);
    };
    if (options.signal?.aborted) queueMicrotask(onAbort);
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const feed = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      if (!streaming) return;
      const text = lines[stream] + chunk.toString('utf8');
      const parts = text.split(/\r\n|\r|\n/);
      lines[stream] = parts.pop() ?? '';
      for (const line of parts) if (line !== '') options.onLine!(line, stream);
    };
    child.stdout!.on('data', (d: Buffer) => {
      out.push(d);
      feed('stdout', d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      err.push(d);
      feed('stderr', d);
    });
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (e: NodeJS.ErrnoException) => {
      cleanup();
      reject(e.code === 'ENOENT' || e.code === 'EACCES' ? missingTool(command) : e);
    });
    child.once('close', (code, signal) => {
      cleanup();
      if (streaming) {
        for (const stream of ['stdout', 'stderr'] as const)
          if (lines[stream] !== '') options.onLine!(lines[stream], stream);
      }
      const stdout = out.bytes();
      resolve({
        command,
        args,
        exitCode: code ?? (signal ? -1 : -1),
        stdout: options.encoding === 'buffer' ? stdout.toString('latin1') : stdout.toString('utf8'),
        stderr: err.bytes().toString('utf8'),
        timedOut,
        ...(cancelled ? { cancelled: true } : {}),
      });
    });
    if (options.input !== undefined) {
      child.stdin!.on('error', () => undefined); // the tool may exit without reading
      child.stdin!.end(options.input);
    }
  });
}

/** All of a stream's output, or only its last `limit` bytes. */
class OutputBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly limit: number | null;
  constructor(limit: number | null) {
    this.limit = limit;
  }
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.limit === null || this.size <= this.limit * 2) return;
    const all = Buffer.concat(this.chunks).subarray(-this.limit);
    this.chunks = [all];
    this.size = all.length;
  }
  bytes(): Buffer {
    const all = Buffer.concat(this.chunks);
    return this.limit === null ? all : all.subarray(-this.limit);
  }
}

/** The tools of `tools` that are not installed, in order (the same lookup `run` uses). */
export async function missingTools(runner: CommandRunner, tools: readonly string[]): Promise<string[]> {
  const found = await Promise.all(tools.map((t) => runner.resolve(t)));
  return tools.filter((_, i) => found[i] === null);
}

/** Throws `501 not_configured` for the first tool of `tools` that is not installed. */
export async function requireTools(runner: CommandRunner, tools: readonly string[]): Promise<void> {
  const [missing] = await missingTools(runner, tools);
  if (missing !== undefined) throw missingTool(missing);
}

/** Throws an Error carrying stderr when a command did not exit 0 (for adapters that need success). */
export function expectSuccess(result: CommandResult): CommandResult {
  if (result.exitCode !== 0 || result.timedOut) {
    const why = result.timedOut ? 'timed out' : `exited ${result.exitCode}`;
    const err = new Error(
      `${result.command} ${result.args.join(' ')} ${why}: ${result.stderr.trim().slice(0, 500)}`,
    );
    throw Object.assign(err, { result });
  }
  return result;
}
