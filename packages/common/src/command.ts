import { execa } from 'execa';
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
    async run(command, args, options = {}) {
      const env: Record<string, string> = { PATH: basePath, LC_ALL: 'C.UTF-8' };
      for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
      try {
        const result = await execa(command, [...args], {
          env,
          extendEnv: false,
          reject: false,
          stripFinalNewline: false,
          timeout: options.timeoutMs ?? defaults.timeoutMs ?? 60_000,
          killSignal: 'SIGKILL',
          ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
          ...(options.cwd ? { cwd: options.cwd } : {}),
          encoding: options.encoding === 'buffer' ? 'buffer' : 'utf8',
        });
        if (result.failed && !result.timedOut && result.exitCode === undefined) {
          const code = (result.cause as NodeJS.ErrnoException | undefined)?.code;
          if (code === 'ENOENT') throw missingTool(command);
          if (code === 'EACCES') throw missingTool(command);
        }
        return {
          command,
          args,
          exitCode: result.exitCode ?? -1,
          stdout:
            typeof result.stdout === 'string'
              ? result.stdout
              : Buffer.from(result.stdout ?? '').toString('latin1'),
          stderr:
            typeof result.stderr === 'string'
              ? result.stderr
              : Buffer.from(result.stderr ?? '').toString('utf8'),
          timedOut: result.timedOut === true,
        };
      } catch (err) {
        if (err instanceof AppError) throw err;
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw missingTool(command);
        throw err;
      }
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
