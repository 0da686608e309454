/** Runs the `appliance` command as a real process (the sources, under Node's type stripping). */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export const CLI = path.join(import.meta.dirname, '..', 'src', 'cli.ts');
const NODE_ARGS = ['--conditions=@appliance/source', CLI];

export interface Result {
  code: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
}

export interface RunOptions {
  /** Written to standard input, which is then closed. */
  input?: string;
  env?: Record<string, string>;
  /** Called with each chunk of stderr as it arrives (and the process, to signal it). */
  onStderr?: (text: string, child: import('node:child_process').ChildProcess) => void;
  timeoutMs?: number;
}

/** `appliance ARGS` with a clean environment (no APPLIANCE_* unless given). */
export function appliance(args: string[], options: RunOptions = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: os.tmpdir(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      options.onStderr?.(d.toString(), child);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * `appliance ARGS` on a pseudo-terminal (util-linux `script`): stdin, stdout and stderr are the
 * terminal. Each `[prompt, answer]` is typed once its prompt has appeared (after the previous
 * answer); a single `waitFor, answer` pair is the usual case. Returns the terminal's text.
 */
export function onTerminal(
  args: string[],
  waitFor: string | Array<[string, string]>,
  answer = '',
  env: Record<string, string> = {},
): Promise<{ code: number | null; screen: string }> {
  const script: Array<[string, string]> = typeof waitFor === 'string' ? [[waitFor, answer]] : [...waitFor];
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, ...NODE_ARGS, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: os.tmpdir(), TERM: 'dumb', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let from = 0;
    const onData = (d: Buffer) => {
      screen += d;
      const next = script[0];
      if (next && screen.indexOf(next[0], from) >= 0) {
        from = screen.indexOf(next[0], from) + next[0].length;
        script.shift();
        child.stdin.write(`${next[1]}\r`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}

export const TOKEN_PATTERN = /^apat_[0-9a-f]{64}\n$/;
