import { spawn } from 'node:child_process';
import { AppError } from './errors.ts';

export interface RunOptions {
  /** Milliseconds before the command is killed (SIGKILL after SIGTERM). Default 60 s. */
  timeoutMs?: number;
  /** Written to stdin (e.g. a password); never logged. */
  input?: string | Uint8Array;
  /** Added to the minimal environment (PATH and LC_ALL only by default). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Return stdout as bytes instead of text. */
  encoding?: 'utf8' | 'buffer';
}

export interface CommandResult {
  command: string;
  args: readonly string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs host tools as argument lists (never through a shell) with a timeout and a minimal
 * environment. A non-zero exit is a result, not an exception; a missing tool is
 * `501 not_configured` naming the Debian package to install.
 */
export interface CommandRunner {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
}

/** Debian package that ships each tool the service drives. */
export const DEBIAN_PACKAGE: Record<string, string> = {
  wipefs: 'util-linux',
  blkid: 'util-linux',
  findmnt: 'util-linux',
  losetup: 'mount',
  mount: 'mount',
  umount: 'mount',
  'mkfs.xfs': 'xfsprogs',
  xfs_admin: 'xfsprogs',
  'mkfs.ext4': 'e2fsprogs',
  'mkfs.btrfs': 'btrfs-progs',
  'mkfs.exfat': 'exfatprogs',
  'mkfs.vfat': 'dosfstools',
  parted: 'parted',
  testparm: 'samba-common-bin',
  smbpasswd: 'samba-common-bin',
  useradd: 'passwd',
  userdel: 'passwd',
  docker: 'docker.io',
  'docker-compose': 'docker-compose',
  mergerfs: 'mergerfs',
  snapraid: 'snapraid',
  age: 'age',
  zstd: 'zstd',
  openssl: 'openssl',
  smartctl: 'smartmontools',
  upsc: 'nut-client',
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

export function createCommandRunner(defaults: { timeoutMs?: number; path?: string } = {}): CommandRunner {
  const basePath =
    defaults.path ?? process.env['PATH'] ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
  return {
    run(command, args, options = {}) {
      const env: Record<string, string> = { PATH: basePath, LC_ALL: 'C.UTF-8' };
      for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
      const timeoutMs = options.timeoutMs ?? defaults.timeoutMs ?? 60_000;
      return new Promise<CommandResult>((resolve, reject) => {
        // Its own process group, so a timeout kills the tool and everything it started.
        const child = spawn(command, [...args], {
          env,
          cwd: options.cwd,
          detached: true,
          stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            child.kill('SIGKILL');
          }
        }, timeoutMs);
        child.stdout!.on('data', (d: Buffer) => out.push(d));
        child.stderr!.on('data', (d: Buffer) => err.push(d));
        child.once('error', (e: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          reject(e.code === 'ENOENT' || e.code === 'EACCES' ? missingTool(command) : e);
        });
        child.once('close', (code, signal) => {
          clearTimeout(timer);
          const stdout = Buffer.concat(out);
          resolve({
            command,
            args,
            exitCode: code ?? (signal ? -1 : -1),
            stdout: options.encoding === 'buffer' ? stdout.toString('latin1') : stdout.toString('utf8'),
            stderr: Buffer.concat(err).toString('utf8'),
            timedOut,
          });
        });
        if (options.input !== undefined) {
          child.stdin!.on('error', () => undefined); // the tool may exit without reading
          child.stdin!.end(options.input);
        }
      });
    },
  };
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
