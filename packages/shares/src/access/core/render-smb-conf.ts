/**
 * The Samba rendering (06 §5.1): the whole `smb.conf` as a pure function of the access snapshot.
 * Same snapshot and options → same bytes.
 */
import { compareBytes } from '../model.ts';
import { type AccessSnapshot, indexAccess } from './effective-access.ts';

export interface SmbRenderOptions {
  /**
   * Host directory of the pooled view (`/mnt/user` on a real host; `<root>/mnt/user` in a sandbox,
   * because Samba and testparm read host paths). Default `/mnt/user`.
   */
  poolDir?: string;
  /** Host path of `smb.custom.conf` when that file exists, else null/absent (no include line). */
  includeFile?: string | null;
  /**
   * Extra `[global]` lines after the fixed ones (the sandboxed smbd's port and directories,
   * `sambaSandboxGlobals`); none on a real host.
   */
  globals?: ReadonlyArray<readonly [string, string]>;
}

const GLOBAL = [
  ['server role', 'standalone server'],
  ['workgroup', 'WORKGROUP'],
  ['security', 'user'],
  ['map to guest', 'never'],
  ['passdb backend', 'tdbsam'],
  ['load printers', 'no'],
] as const;

const line = (key: string, value: string): string => `   ${key} = ${value}\n`;

/** Samba names: the lowercase usernames, sorted, space-separated. */
const names = (usernames: readonly string[]): string =>
  usernames
    .map((u) => u.toLowerCase())
    .sort(compareBytes)
    .join(' ');

export function renderSmbConf(snapshot: AccessSnapshot, options: SmbRenderOptions = {}): string {
  const poolDir = (options.poolDir ?? '/mnt/user').replace(/\/+$/, '');
  const index = indexAccess(snapshot);
  let out = '[global]\n';
  for (const [key, value] of GLOBAL) out += line(key, value);
  for (const [key, value] of options.globals ?? []) out += line(key, value);
  if (options.includeFile) out += line('include', options.includeFile);

  const shares = snapshot.shares
    .filter((s) => s.smb.enabled)
    .sort((a, b) => compareBytes(a.name.toLowerCase(), b.name.toLowerCase()) || compareBytes(a.name, b.name));
  for (const share of shares) {
    const access = index.shareAccess(share.name);
    const readers = access.users.filter((u) => u.access !== 'none').map((u) => u.username);
    const writers = access.users.filter((u) => u.access === 'read-write').map((u) => u.username);
    out += `\n[${share.name}]\n`;
    out += line('path', `${poolDir}/${share.name}`);
    out += line('browseable', share.smb.browseable ? 'yes' : 'no');
    if (readers.length === 0) {
      out += line('available', 'no');
      continue;
    }
    out += line('read only', 'yes');
    out += line('valid users', names(readers));
    if (writers.length > 0) out += line('write list', names(writers));
    out += line('create mask', '0664');
    out += line('directory mask', '0775');
  }
  return out;
}

/**
 * The file with the values of `valid users` and `write list` blanked (06 §5.2 step 3): two renders
 * with the same key differ only in those values, which come from the username alphabet and cannot
 * change the file's structure, so a file `testparm` accepted vouches for the other.
 */
export function smbConfStructureKey(text: string): string {
  return text.replace(/^( {3}(?:valid users|write list) = ).*$/gm, '$1');
}
