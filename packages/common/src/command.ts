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

/** execa and its dependencies load with the first run, not with the service (a start runs no tool). */
let execaModule: Promise<typeof import('execa')> | null = null;
const loadExeca = () => (execaModule ??= import('execa'));

/**
 * One run, on execa. What the port adds to it: the tool's own process group (`killDescendants`), so
 * a timeout or a cancel reaches the tool and everything it started; a timeout is SIGKILL at once (a
 * cancel is `killSignal`, then SIGKILL after `killGraceMs`); lines split at `\n` and `\r` as they
 * come, with only the output's tail kept; a non-zero exit is a result, never an exception.
 */
async function spawnTool(
  command: string,
  executable: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number | null,
  options: RunOptions,
): Promise<CommandResult> {
  const streaming = options.onLine !== undefined;
  const { execa } = await loadExeca();
  const subprocess = execa(executable, [...args], {
    argv0: command,
    env,
    extendEnv: false,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    killDescendants: true,
    cleanup: false,
    reject: false,
    stripFinalNewline: false,
    encoding: options.encoding === 'buffer' ? 'buffer' : 'utf8',
    // Streamed output is kept here (its tail only); a plain run keeps it all, as before.
    buffer: !streaming,
    maxBuffer: Number.MAX_SAFE_INTEGER,
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    killSignal: options.killSignal ?? 'SIGTERM',
    forceKillAfterDelay: options.killGraceMs ?? 30_000,
  });
  if (subprocess.pid !== undefined) options.onSpawn?.(subprocess.pid);
  let timedOut = false;
  const timer =
    timeoutMs === null
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          subprocess.kill('SIGKILL');
        }, timeoutMs);
  const out = streaming ? new OutputBuffer(TAIL_BYTES) : null;
  const err = streaming ? new OutputBuffer(TAIL_BYTES) : null;
  if (streaming) {
    const lines = { stdout: '', stderr: '' };
    const feed = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      (stream === 'stdout' ? out : err)!.push(chunk);
      const parts = (lines[stream] + chunk.toString('utf8')).split(/\r\n|\r|\n/);
      lines[stream] = parts.pop() ?? '';
      for (const line of parts) if (line !== '') options.onLine!(line, stream);
    };
    subprocess.stdout.on('data', (d: Buffer) => feed('stdout', d));
    subprocess.stderr.on('data', (d: Buffer) => feed('stderr', d));
    subprocess.stdout.once('end', () => lines.stdout !== '' && options.onLine!(lines.stdout, 'stdout'));
    subprocess.stderr.once('end', () => lines.stderr !== '' && options.onLine!(lines.stderr, 'stderr'));
  }
  const result = await subprocess;
  if (timer) clearTimeout(timer);
  const code = (result.cause as NodeJS.ErrnoException | undefined)?.code;
  if (
    result.exitCode === undefined &&
    result.signal === undefined &&
    (code === 'ENOENT' || code === 'EACCES')
  )
    throw missingTool(command);
  if (result.exitCode === undefined && result.signal === undefined && !result.isCanceled && !timedOut)
    throw result.cause instanceof Error ? result.cause : new Error(result.message);
  const text = (output: unknown, tail: OutputBuffer | null, encoding: BufferEncoding): string => {
    if (tail) return tail.bytes().toString(encoding);
    if (typeof output === 'string') return output;
    const bytes = output as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding);
  };
  return {
    command,
    args,
    exitCode: result.exitCode ?? -1,
    stdout: text(result.stdout, out, options.encoding === 'buffer' ? 'latin1' : 'utf8'),
    stderr: text(result.stderr, err, 'utf8'),
    timedOut,
    ...(result.isCanceled ? { cancelled: true } : {}),
  };
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
