/**
 * The sandboxed Samba of a root prefix (issue 24): the service's own `smbd`, serving the shares on a
 * loopback port, with every directory Samba writes (passdb, locks, state, cache, pid, logs) under the
 * root. Pure: the layout, the extra `[global]` lines and the checks are plain data.
 *
 * The logical directories are Debian's own defaults, so the same logical pid file
 * (`/run/samba/smbd.pid`) names the system's smbd on a real host and the sandbox's under a root.
 */

/** Debian's Samba directories (logical; under the root prefix in a sandbox). */
export const SAMBA_DIRS = {
  private: '/var/lib/samba/private',
  state: '/var/lib/samba',
  cache: '/var/cache/samba',
  lock: '/run/samba',
  pid: '/run/samba',
  ncalrpc: '/run/samba/ncalrpc',
  log: '/var/log/samba',
} as const;

/** smbd's pid file (logical): `pid directory` + `smbd.pid`. */
export const SMBD_PID_FILE = '/run/samba/smbd.pid';

/** The default port of a sandboxed smbd (445 needs the machine's own Samba; 4450 is free of it). */
export const DEFAULT_SANDBOX_SMB_PORT = 4450;

export type SambaDirs = { readonly [K in keyof typeof SAMBA_DIRS]: string };

export interface SambaSandboxLayout {
  /** Host path of the generated smb.conf (`HostPaths.sambaConf`). */
  smbConf: string;
  /** TCP port smbd listens on, on loopback only. */
  port: number;
  /** Host paths of Samba's directories. */
  dirs: SambaDirs;
  /** Host path of smbd's pid file. */
  pidFile: string;
  /** Host path of the share pool (`HostPaths.userPool`): every user must be able to reach it. */
  poolDir: string;
}

/** The layout under a root prefix; `real` maps a logical path to its host path. */
export function sambaSandboxLayout(options: {
  real: (logical: string) => string;
  smbConf: string;
  poolDir: string;
  port: number;
}): SambaSandboxLayout {
  const dirs = Object.fromEntries(
    Object.entries(SAMBA_DIRS).map(([key, logical]) => [key, options.real(logical)]),
  ) as unknown as SambaDirs;
  return {
    smbConf: options.smbConf,
    port: options.port,
    dirs,
    pidFile: options.real(SMBD_PID_FILE),
    poolDir: options.poolDir,
  };
}

/**
 * The `[global]` lines that make the generated smb.conf a sandbox's: the loopback port, loopback
 * only, no NetBIOS, every directory under the root (the passdb is the tdbsam under `private dir`),
 * and no RPC helper daemons.
 */
export function sambaSandboxGlobals(layout: SambaSandboxLayout): Array<readonly [string, string]> {
  const { dirs } = layout;
  return [
    ['smb ports', String(layout.port)],
    ['bind interfaces only', 'yes'],
    ['interfaces', 'lo'],
    ['disable netbios', 'yes'],
    ['private dir', dirs.private],
    ['state directory', dirs.state],
    ['cache directory', dirs.cache],
    ['lock directory', dirs.lock],
    ['pid directory', dirs.pid],
    ['ncalrpc dir', dirs.ncalrpc],
    ['log file', `${dirs.log}/log.%m`],
    ['max log size', '1000'],
    // No samba-dcerpcd started on demand: it runs in a session of its own that outlives smbd, and
    // its helpers create their log files in the machine's /var/log/samba whatever this file says.
    // Shares are reached by name; listing them over RPC (smbclient -L) is not served.
    ['rpc start on demand helpers', 'no'],
  ];
}

/** Longest Unix socket path the kernel accepts (`sun_path` is 108 bytes with its NUL). */
const SUN_PATH_MAX = 107;
/** The longest socket names Samba creates below the lock and ncalrpc directories. */
const LONGEST_SOCKETS = ['/msg.sock/4294967296', '/np/protected_storage', '/EPMAPPER'];

/**
 * Why this layout cannot run, or null: a port outside 1–65535, a path with a character smb.conf
 * cannot carry, or a root so long that Samba's Unix sockets would not fit.
 */
export function sambaSandboxProblem(layout: SambaSandboxLayout): string | null {
  if (!Number.isInteger(layout.port) || layout.port < 1 || layout.port > 65535)
    return `The Samba port must be a number from 1 to 65535, not ${layout.port}.`;
  for (const dir of [...Object.values(layout.dirs), layout.smbConf, layout.poolDir]) {
    if (/[\n\r\0%]/.test(dir))
      return `The sandbox path ${JSON.stringify(dir)} cannot be written into smb.conf (line break, % or NUL): choose a plainer root prefix.`;
  }
  for (const [dir, tail] of [
    [layout.dirs.lock, LONGEST_SOCKETS[0]!],
    [layout.dirs.ncalrpc, LONGEST_SOCKETS[1]!],
    [layout.dirs.ncalrpc, LONGEST_SOCKETS[2]!],
  ] as const) {
    if (Buffer.byteLength(dir + tail) > SUN_PATH_MAX)
      return `The root prefix is too long for Samba's sockets (${dir}${tail} exceeds ${SUN_PATH_MAX} bytes): choose a shorter root prefix.`;
  }
  return null;
}
