/**
 * The one list of the host tools the appliance runs: for each, the Debian package that ships it,
 * whether the service can do its job without it (required or optional), the feature it serves and
 * why. `appliance doctor` checks exactly these, the runner's `501 not_configured` names their
 * package (DEBIAN_PACKAGE), and docs/install.md's package lists must match (a test in
 * @appliance/doctor compares them, and another fails when a feature's code runs a tool that is
 * not here). The required/optional rule: docs/decisions/install.md.
 */

export type HostToolFeature =
  | 'disks and the array'
  | 'parity'
  | 'disk jobs'
  | 'backup disks'
  | 'backups'
  | 'users and shares'
  | 'apps'
  | 'watchers'
  | 'updates'
  | 'service'
  | 'operator';

export interface HostTool {
  tool: string;
  /** The Debian package that ships it. */
  package: string;
  /** Without it a core operation fails (doctor exits 1); otherwise doctor only warns. */
  required: boolean;
  feature: HostToolFeature;
  /** What it is used for: said by doctor when it is missing. */
  why: string;
  /**
   * `service`: the service's code runs it (the census test finds it there); `operator`: only the
   * operator runs it, to check or undo by hand what the service does (a message or the guide names it).
   */
  runBy: 'service' | 'operator';
  /** Arguments that make it print its version (or just start and stop). */
  versionArgs: readonly string[];
  /** Whether the first output line is a version worth showing (false: a usage line). */
  showsVersion: boolean;
}

const t = (
  tool: string,
  pkg: string,
  required: boolean,
  feature: HostToolFeature,
  why: string,
  versionArgs: readonly string[] = ['--version'],
  extra: { runBy?: 'service' | 'operator'; showsVersion?: boolean } = {},
): HostTool => ({
  tool,
  package: pkg,
  required,
  feature,
  why,
  runBy: extra.runBy ?? 'service',
  versionArgs,
  showsVersion: extra.showsVersion ?? true,
});

export const HOST_TOOLS: readonly HostTool[] = [
  t('blkid', 'util-linux', true, 'disks and the array', 'reads the filesystem UUID and label of every disk'),
  t('wipefs', 'util-linux', true, 'disks and the array', 'clears old signatures before a disk is formatted'),
  t('findmnt', 'util-linux', true, 'disks and the array', 'checks every mount the service makes'),
  t('mount', 'mount', true, 'disks and the array', 'mounts array and backup disks'),
  t('umount', 'mount', true, 'disks and the array', 'unmounts disks (format, undo of a failed setup)'),
  t(
    'mkfs.xfs',
    'xfsprogs',
    true,
    'disks and the array',
    'formats disks as XFS, the default filesystem of the array and of backups',
    ['-V'],
  ),
  t(
    'mergerfs',
    'mergerfs',
    true,
    'disks and the array',
    'pools the data disks at /mnt/user, where the shares live',
  ),
  t(
    'getfattr',
    'attr',
    true,
    'disks and the array',
    "reads the pool's branch settings and keeps extended attributes when a disk is rebuilt",
  ),
  t(
    'setfattr',
    'attr',
    true,
    'disks and the array',
    'takes an offline disk out of the pool and restores extended attributes on a rebuilt disk',
  ),
  t(
    'chattr',
    'e2fsprogs',
    true,
    'disks and the array',
    "makes each slot's empty mountpoint immutable, so nothing is written there while its disk is away",
    ['-V'],
    { showsVersion: false },
  ),
  t('snapraid', 'snapraid', true, 'parity', 'computes the parity that protects the array'),
  t(
    'setpriv',
    'util-linux',
    true,
    'parity',
    'runs snapraid, rsync and smbd so that they stop when the service stops',
  ),
  t('rsync', 'rsync', true, 'disk jobs', "copies a data disk's files onto its larger replacement (upgrade)"),
  t(
    'getfacl',
    'acl',
    true,
    'disk jobs',
    "records the permissions (ACLs) of a data disk's files before a disk job",
  ),
  t('setfacl', 'acl', true, 'disk jobs', "restores the permissions (ACLs) of a rebuilt data disk's files"),
  t(
    'blockdev',
    'util-linux',
    true,
    'backup disks',
    'makes the kernel re-read the partition table when a backup disk is formatted',
  ),
  t('sync', 'coreutils', true, 'backup disks', 'flushes a backup disk before it is unmounted'),
  t('restic', 'restic', true, 'backups', 'writes, checks and restores the backups', ['version']),
  t(
    'smbpasswd',
    'samba-common-bin',
    true,
    'users and shares',
    'sets the Samba password of every user the API creates',
    ['-h'],
    { showsVersion: false },
  ),
  t('useradd', 'passwd', true, 'users and shares', 'creates the Unix account of every user', ['-h'], {
    showsVersion: false,
  }),
  t('userdel', 'passwd', true, 'users and shares', 'deletes the Unix account of a deleted user', ['-h'], {
    showsVersion: false,
  }),
  t(
    'smartctl',
    'smartmontools',
    true,
    'watchers',
    "reads the disks' SMART health (the SMART watcher and the disk views)",
  ),
  t(
    'testparm',
    'samba-common-bin',
    false,
    'users and shares',
    'validates each generated smb.conf before it is installed (without it the file goes in unchecked)',
  ),
  t(
    'smbcontrol',
    'samba-common-bin',
    false,
    'users and shares',
    'tells a running smbd to reload smb.conf (without smbd there is nothing to tell)',
  ),
  t(
    'smbd',
    'samba',
    false,
    'users and shares',
    'serves the shares over SMB (the API configures it; smbd serves it)',
  ),
  t(
    'smbstatus',
    'samba',
    false,
    'users and shares',
    'lists the SMB sessions of a user whose access ends (without smbd there are none)',
  ),
  t(
    'mkfs.ext4',
    'e2fsprogs',
    false,
    'disks and the array',
    'formats disks as ext4 (only when ext4 is chosen)',
    ['-V'],
  ),
  t(
    'mkfs.btrfs',
    'btrfs-progs',
    false,
    'disks and the array',
    'formats disks as btrfs (only when btrfs is chosen)',
  ),
  t(
    'mkfs.exfat',
    'exfatprogs',
    false,
    'backup disks',
    'formats backup disks as exFAT (only when exFAT is chosen)',
    ['-V'],
  ),
  t(
    'systemctl',
    'systemd',
    false,
    'disks and the array',
    'enables the mount units that mount the array at boot (without it the unit files are written, not enabled)',
  ),
  t(
    'openssl',
    'openssl',
    true,
    'service',
    'generates the self-signed TLS pair on the first start (the default listener serves HTTPS)',
    ['version'],
  ),
  t('docker', 'docker.io', false, 'apps', 'the Docker CLI: apps, and stopping app stacks around a backup'),
  t(
    'docker-compose',
    'docker-compose',
    false,
    'apps',
    'Compose v1/v2 standalone, when `docker compose` is absent',
  ),
  t('apt-get', 'apt', false, 'updates', "checks for and applies updates of the system's Debian packages"),
  t('apt-config', 'apt', false, 'updates', "reads apt's configuration (where its lists and archives are)", [
    '--version',
  ]),
  t(
    'dpkg',
    'dpkg',
    false,
    'updates',
    'says whether the package database is consistent after an update (dpkg --audit)',
  ),
  t(
    'systemd-run',
    'systemd',
    false,
    'updates',
    'runs an update in a unit of its own, so that it survives a restart of the service',
  ),
  t(
    'dpkg-query',
    'dpkg',
    false,
    'service',
    'tells doctor a package\'s version when its program reports none (snapraid\'s "vnone")',
  ),
  t(
    'lsblk',
    'util-linux',
    false,
    'operator',
    "the operator's view of the disks (the service reads sysfs itself)",
    ['--version'],
    { runBy: 'operator' },
  ),
  t(
    'age',
    'age',
    false,
    'operator',
    'decrypts a config export by hand (the service itself encrypts and decrypts in-process)',
    ['--version'],
    { runBy: 'operator' },
  ),
  t(
    'upsc',
    'nut-client',
    false,
    'operator',
    "lists the UPS names upsd knows (`upsc -l`), as the UPS watcher's messages suggest (the service speaks to upsd itself)",
    ['-V'],
    { runBy: 'operator' },
  ),
];

/** Packages of tools only the tests and the lab run (losetup, smbclient, …): named in a 501, never installed by the guide. */
export const LAB_TOOL_PACKAGES: Readonly<Record<string, string>> = {
  losetup: 'mount',
  xfs_admin: 'xfsprogs',
  xfs_growfs: 'xfsprogs',
  'mkfs.vfat': 'dosfstools',
  parted: 'parted',
  zstd: 'zstd',
  stdbuf: 'coreutils',
  pdbedit: 'samba-common-bin',
  smbclient: 'smbclient',
  sha256sum: 'coreutils',
  udevadm: 'udev',
};

/** Debian packages the guide installs that ship no tool: why each is there. */
export const OTHER_PACKAGES: Readonly<Record<string, { required: boolean; why: string }>> = {
  'ca-certificates': {
    required: false,
    why: "the system's CA store, for restic and docker to reach HTTPS registries and repositories",
  },
};

/**
 * The Debian packages the install guide lists, split as the guide splits them: a package is
 * required when one of its tools is.
 */
export function installPackages(): { required: string[]; optional: string[] } {
  const required = new Set<string>();
  const all = new Set<string>();
  for (const h of HOST_TOOLS) {
    all.add(h.package);
    if (h.required) required.add(h.package);
  }
  for (const [pkg, o] of Object.entries(OTHER_PACKAGES)) {
    all.add(pkg);
    if (o.required) required.add(pkg);
  }
  return {
    required: [...required].sort(),
    optional: [...all].filter((p) => !required.has(p)).sort(),
  };
}
