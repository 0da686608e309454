import path from 'node:path';

/**
 * Every host path goes through one HostPaths object. With a root prefix the service runs in a
 * sandbox (`<root>/mnt/disk1`, `<root>/var/lib/appliance/state.db`) while the API keeps reporting
 * the logical paths (`/mnt/disk1`).
 */
export interface HostPaths {
  /** The root prefix ('' or '/' means the real host). Absolute, no trailing slash. */
  readonly root: string;
  /** Real path on this machine for a logical absolute path. Rejects relative paths and `..`. */
  real(logical: string): string;
  /** Logical path for a real path inside the root; `null` when it is outside. */
  logical(real: string): string | null;
  readonly configFile: string;
  readonly machineKey: string;
  readonly etcDir: string;
  readonly sambaConf: string;
  readonly snapraidConf: string;
  readonly stateDir: string;
  readonly database: string;
  readonly stacksDir: string;
  readonly catalogDir: string;
  readonly backupsDir: string;
  readonly socket: string;
  readonly userPool: string;
  readonly externalDisksDir: string;
  /** Host files read by inventory and GPU detection (sysfs, /dev, /proc, /run/udev, /etc/group). */
  readonly sysClassBlock: string;
  readonly sysDevBlock: string;
  readonly devDir: string;
  readonly procDir: string;
  readonly udevData: string;
  readonly etcGroup: string;
  readonly etcPasswd: string;
}

/** Logical locations (00-conventions §2). */
export const LOGICAL = {
  configFile: '/etc/appliance/config.toml',
  machineKey: '/etc/appliance/secret.key',
  etcDir: '/etc/appliance',
  sambaConf: '/etc/appliance/samba/smb.conf',
  snapraidConf: '/etc/appliance/snapraid.conf',
  stateDir: '/var/lib/appliance',
  database: '/var/lib/appliance/state.db',
  stacksDir: '/var/lib/appliance/stacks',
  catalogDir: '/var/lib/appliance/catalog',
  backupsDir: '/var/lib/appliance/backups',
  socket: '/run/appliance/appliance.sock',
  userPool: '/mnt/user',
  externalDisksDir: '/mnt/disks',
} as const;

/** The group the service gives its socket to (0660 root:appliance) when the group exists. */
export const SOCKET_GROUP = 'appliance';

export interface HostPathsOptions {
  root?: string;
  /**
   * Where the host facts (sysfs, /dev, /proc, udev, group database) are read. By default the
   * real host's ('/'), even in a sandbox, because the disks are real; tests that present a
   * synthetic sysfs or render group set this to the sandbox root.
   */
  hostRoot?: string;
  /** Overrides for individual logical locations (from the configuration file). */
  overrides?: Partial<Record<keyof typeof LOGICAL, string>>;
}

export function assertLogicalPath(logical: string): void {
  if (!logical.startsWith('/') || logical.includes('\0')) {
    throw new Error(`not an absolute logical path: ${JSON.stringify(logical)}`);
  }
  if (logical.split('/').some((seg) => seg === '..')) {
    throw new Error(`path escapes its root: ${JSON.stringify(logical)}`);
  }
}

export function joinUnder(root: string, logical: string): string {
  assertLogicalPath(logical);
  if (root === '' || root === '/') return path.normalize(logical);
  return path.join(root, logical);
}

export function createHostPaths(options: HostPathsOptions = {}): HostPaths {
  const root = normalizeRoot(options.root);
  const hostRoot = normalizeRoot(options.hostRoot);
  const loc = { ...LOGICAL, ...options.overrides };
  const real = (logical: string) => joinUnder(root, logical);
  const host = (logical: string) => joinUnder(hostRoot, logical);
  return {
    root,
    real,
    logical(realPath: string): string | null {
      const normalized = path.normalize(realPath);
      if (root === '') return normalized;
      if (normalized === root) return '/';
      return normalized.startsWith(`${root}/`) ? normalized.slice(root.length) : null;
    },
    configFile: real(loc.configFile),
    machineKey: real(loc.machineKey),
    etcDir: real(loc.etcDir),
    sambaConf: real(loc.sambaConf),
    snapraidConf: real(loc.snapraidConf),
    stateDir: real(loc.stateDir),
    database: real(loc.database),
    stacksDir: real(loc.stacksDir),
    catalogDir: real(loc.catalogDir),
    backupsDir: real(loc.backupsDir),
    socket: real(loc.socket),
    userPool: real(loc.userPool),
    externalDisksDir: real(loc.externalDisksDir),
    sysClassBlock: host('/sys/class/block'),
    sysDevBlock: host('/sys/dev/block'),
    devDir: host('/dev'),
    procDir: host('/proc'),
    udevData: host('/run/udev/data'),
    etcGroup: host('/etc/group'),
    etcPasswd: host('/etc/passwd'),
  };
}

function normalizeRoot(root: string | undefined): string {
  if (root === undefined || root === '' || root === '/') return '';
  if (!path.isAbsolute(root)) throw new Error(`the root prefix must be an absolute path: ${root}`);
  return path.normalize(root).replace(/\/+$/, '');
}
