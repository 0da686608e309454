/**
 * The Samba/Unix account adapter (08 §4.2): a share user is a Unix account without a home or shell
 * (so Samba can map it) plus a Samba password in the tdbsam database. The name is the lowercase
 * username. Not wired in a sandbox: the server wires it only on a real host.
 */
import fs from 'node:fs/promises';
import type { CommandRunner } from '@appliance/common';
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
  const unixName = (username: string): string => {
    if (!USERNAME_PATTERN.test(username))
      throw new Error(`not a valid username: ${JSON.stringify(username)}`);
    return username.toLowerCase();
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
        if (await passwdHasUser(options.passwdFile, name)) {
          const d = await runner.run('userdel', [name], TIMEOUT);
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
  const text = await fs.readFile(passwdFile, 'utf8');
  return text.split('\n').some((line) => line.split(':', 1)[0] === name);
}
