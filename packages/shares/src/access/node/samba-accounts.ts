/**
 * The Samba/Unix account adapter (08 §4.2): a share user is a Unix account without a home or shell
 * (so Samba can map it) plus a Samba password in the tdbsam database. The name is the lowercase
 * username. The server wires it on a real host, and in a sandbox that runs its own smbd
 * (`samba.sandbox`: the passdb is the sandbox's, through `smbConf`); never in any other sandbox.
 */
import fs from 'node:fs/promises';
import { AppError, type CommandRunner } from '@appliance/common';
import { sambaAccountFailed, sambaPasswordFailed } from '../errors.ts';
import { USERNAME_PATTERN } from '../model.ts';

export interface SambaAccountsOptions {
  runner: CommandRunner;
  /** The host's passwd database (`HostPaths.etcPasswd`). */
  passwdFile: string;
  /** smb.conf given to smbpasswd with `-c` (default: Samba's own default file). */
  smbConf?: string;
  log?: (message: string, cause?: unknown) => void;
}

export interface SambaAccounts {
  /** Ensures the Unix account, then sets the Samba password. `502 samba_password_failed` on failure. */
  setPassword(username: string, password: string): Promise<void>;
  /** Removes the Samba entry and the Unix account (absent ones are fine). `502 samba_account_failed`. */
  remove(username: string): Promise<void>;
}

const TIMEOUT = { timeoutMs: 30_000 };

export function createSambaAccounts(options: SambaAccountsOptions): SambaAccounts {
  const { runner } = options;
  const log = options.log ?? (() => undefined);
  const conf = options.smbConf ? ['-c', options.smbConf] : [];
  const statusConf = options.smbConf ? ['-s', options.smbConf] : [];
  const unixName = (username: string): string => {
    if (!USERNAME_PATTERN.test(username))
      throw new Error(`not a valid username: ${JSON.stringify(username)}`);
    return username.toLowerCase();
  };

  /**
   * Ends the open SMB sessions of `name`: the smbd processes `smbstatus` lists for it (one per
   * client connection) get SIGTERM. Without a running smbd (or without smbstatus) there is nothing
   * to end. Returns how many processes were asked to end.
   */
  const endSessions = async (name: string): Promise<number> => {
    let text: string;
    try {
      const r = await runner.run('smbstatus', [...statusConf, '--json', '-b', '-u', name], TIMEOUT);
      if (r.exitCode !== 0) return 0;
      text = r.stdout;
    } catch (err) {
      if (err instanceof AppError && err.status === 501) return 0; // smbstatus not installed: no smbd
      throw err;
    }
    const pids = sessionPids(text, name);
    await endProcesses(pids);
    return pids.length;
  };

  return {
    async setPassword(username, password) {
      const name = unixName(username);
      if (/[\r\n\0]/.test(password)) {
        log('a password with a line break or NUL cannot be passed to smbpasswd');
        throw sambaPasswordFailed();
      }
      let created = false;
      try {
        if (!(await passwdHasUser(options.passwdFile, name))) {
          const r = await runner.run(
            'useradd',
            ['--no-create-home', '--shell', '/usr/sbin/nologin', '--gid', 'users', name],
            TIMEOUT,
          );
          if (r.exitCode !== 0) throw new Error(`useradd exited ${r.exitCode}: ${r.stderr.trim()}`);
          created = true;
        }
        const r = await runner.run('smbpasswd', [...conf, '-a', '-s', name], {
          ...TIMEOUT,
          input: `${password}\n${password}\n`,
        });
        if (r.exitCode !== 0) throw new Error(`smbpasswd -a exited ${r.exitCode}: ${r.stderr.trim()}`);
      } catch (err) {
        log(`setting the Samba password of ${name} failed`, err);
        if (created) await runner.run('userdel', [name], TIMEOUT).catch(() => undefined);
        throw sambaPasswordFailed();
      }
    },

    async remove(username) {
      const name = unixName(username);
      try {
        const r = await runner.run('smbpasswd', [...conf, '-x', name], TIMEOUT);
        const absent = /Failed to find entry for user/i.test(r.stdout + r.stderr);
        if (r.exitCode !== 0 && !absent)
          throw new Error(`smbpasswd -x exited ${r.exitCode}: ${r.stderr.trim()}`);
        // No new logon is possible now; the user's open SMB sessions end too, or they would go on
        // under an account that no longer exists (and userdel refuses a uid smbd still runs as).
        const ended = await endSessions(name);
        if (ended > 0) log(`ended ${ended} open SMB connection(s) of ${name}`);
        const uid = await passwdUid(options.passwdFile, name);
        if (uid !== null) {
          let d = await runner.run('userdel', [name], TIMEOUT);
          if (d.exitCode === USERDEL_IN_USE) {
            // An smbd process still runs as the user (a connection that opened meanwhile, or one
            // smbstatus did not list): end it, then delete.
            const more = await endSmbdProcessesOf(uid);
            log(`ended ${more} smbd process(es) running as ${name} before deleting the account`);
            d = await runner.run('userdel', [name], TIMEOUT);
          }
          if (d.exitCode !== 0) throw new Error(`userdel exited ${d.exitCode}: ${d.stderr.trim()}`);
        }
      } catch (err) {
        log(`removing the Samba/Unix account ${name} failed`, err);
        throw sambaAccountFailed();
      }
    },
  };
}

/** Whether the passwd database has an account of this exact name. */
export async function passwdHasUser(passwdFile: string, name: string): Promise<boolean> {
  return (await passwdUid(passwdFile, name)) !== null;
}

/** The uid of the account of this exact name, or null. */
export async function passwdUid(passwdFile: string, name: string): Promise<number | null> {
  const text = await fs.readFile(passwdFile, 'utf8');
  const fields = text
    .split('\n')
    .map((line) => line.split(':'))
    .find((f) => f[0] === name);
  return fields && /^\d+$/.test(fields[2] ?? '') ? Number(fields[2]) : null;
}

/** userdel's exit status for "user is currently used by process" (shadow-utils). */
const USERDEL_IN_USE = 8;

/**
 * SIGTERM to every smbd process whose real, effective, saved or filesystem uid is `uid` (the
 * processes userdel finds), SIGKILL to those left after 5 s. Other programs are never signalled.
 */
export async function endSmbdProcessesOf(uid: number): Promise<number> {
  const victims = await smbdProcessesOf(uid);
  await endProcesses(victims);
  return victims.length;
}

/**
 * The server pids of `name`'s sessions in `smbstatus --json -b` output (the processes serving that
 * user's connections); malformed output gives none.
 */
export function sessionPids(json: string, name: string): number[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  const sessions = (parsed as { sessions?: Record<string, unknown> } | null)?.sessions;
  if (!sessions || typeof sessions !== 'object') return [];
  const pids = new Set<number>();
  for (const session of Object.values(sessions)) {
    const s = session as { username?: unknown; server_id?: { pid?: unknown } };
    const pid = Number(s.server_id?.pid);
    if (
      typeof s.username === 'string' &&
      s.username.toLowerCase() === name &&
      Number.isInteger(pid) &&
      pid > 1
    )
      pids.add(pid);
  }
  return [...pids];
}

/** SIGTERM to the smbd processes among `pids`, SIGKILL to those left after 5 s. */
async function endProcesses(pids: readonly number[]): Promise<void> {
  const isSmbd = async (pid: number) =>
    /\/smbd( \(deleted\))?$/.test(await fs.readlink(`/proc/${pid}/exe`).catch(() => ''));
  const live = async () => {
    const out: number[] = [];
    for (const pid of pids) if (await isSmbd(pid)) out.push(pid);
    return out;
  };
  for (const pid of await live()) signal(pid, 'SIGTERM');
  const end = Date.now() + 5_000;
  while ((await live()).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  for (const pid of await live()) signal(pid, 'SIGKILL');
}

async function smbdProcessesOf(uid: number): Promise<number[]> {
  const out: number[] = [];
  for (const name of await fs.readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const exe = await fs.readlink(`/proc/${name}/exe`);
      if (!/\/smbd( \(deleted\))?$/.test(exe)) continue;
      const status = await fs.readFile(`/proc/${name}/status`, 'utf8');
      const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/).map(Number) ?? [];
      if (uids.includes(uid)) out.push(Number(name));
    } catch {
      // exited meanwhile, or a kernel thread
    }
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
