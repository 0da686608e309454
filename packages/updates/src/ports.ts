import type { CommandRunner } from '@appliance/common';

/** What the apt operations need. */
export interface AptDeps {
  runner: CommandRunner;
  /**
   * An apt configuration file of its own (`APT_CONFIG`), or null for the system's. Tests point apt
   * (and dpkg, through its `DPkg::Options`) at a private root with it.
   */
  aptConfig: string | null;
  /**
   * Run apt-get in a transient systemd unit (`systemd-run --wait --pipe`) instead of as a child of
   * the service: the service's unit forbids creating set-user-ID files (RestrictSUIDSGID), which
   * an upgrade of mount or passwd needs, and an upgrade of the appliance itself restarts the
   * service, whose control group would take apt down with it. The server sets it on a booted
   * systemd host (not in a sandbox).
   */
  transientUnit?: boolean;
  /** Limits of each apt run (default: 10 minutes for `update`, none for the upgrade). */
  timeoutMs?: number;
}

/** Where the reboot facts are read (the host root of the HostPaths). */
export interface RebootPaths {
  /** `<host>/run/reboot-required`. */
  flagFile: string;
  /** `<host>/run/reboot-required.pkgs`. */
  pkgsFile: string;
  /** `<host>/boot`. */
  bootDir: string;
  /** `<host>/proc/sys/kernel/osrelease`. */
  osRelease: string;
}
