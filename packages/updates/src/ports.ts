import type { CommandRunner } from '@appliance/common';

/** What the apt operations need. */
export interface AptDeps {
  runner: CommandRunner;
  /**
   * An apt configuration file of its own (`APT_CONFIG`), or null for the system's. Tests point apt
   * (and dpkg, through its `DPkg::Options`) at a private root with it.
   */
  aptConfig: string | null;
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
