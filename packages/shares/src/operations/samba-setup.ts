/**
 * Which Samba a service drives and how it runs it (06 §5.3, issue 24), from what it knows of its
 * host: `host` (no root prefix: the machine's smbd, reloaded), `sandbox` (a root prefix with the
 * sandbox's own smbd on a loopback port) or `none` (a sandbox without Samba: smb.conf is written
 * and validated, nothing reads it); the sandbox's layout under the root prefix; the `[global]`
 * lines the service adds to smb.conf; and the service's start, which installs one coalescing
 * regenerator and returns what other changes call.
 */
import type { CommandRunner } from '@appliance/common';
import type { AccessSnapshot } from '../access/core/effective-access.ts';
import { type SambaSandboxLayout, sambaSandboxLayout } from '../access/core/samba-sandbox.ts';
import {
  createSambaService,
  regenerateAndSettle,
  type SambaMode,
  renderSmbConfAt,
  type SambaServiceOptions,
  sambaServiceGlobals,
  startSamba,
} from './samba-service.ts';

/** What a service knows of its host to set up Samba. */
export interface SambaHost {
  /** The root prefix ('' on a real host). */
  root: string;
  /** Whether a sandbox (a root prefix) runs its own smbd. */
  sandbox: boolean;
  /** The sandboxed smbd's loopback port. */
  port: number;
  /** Maps a logical path to its host path (under the root prefix). */
  real(logical: string): string;
  /** Host path of smb.conf. */
  smbConf: string;
  /** Host path of the pooled view. */
  poolDir: string;
}

/** `host` without a root prefix; under one, `sandbox` when it runs its own smbd, else `none`. */
export function sambaModeOf(host: SambaHost): SambaMode {
  if (host.root === '') return 'host';
  return host.sandbox ? 'sandbox' : 'none';
}

/** The sandboxed smbd's layout under the root prefix (mode `sandbox`), else null. */
export function sambaLayoutOf(host: SambaHost): SambaSandboxLayout | null {
  if (sambaModeOf(host) !== 'sandbox') return null;
  return sambaSandboxLayout({
    real: (logical) => host.real(logical),
    smbConf: host.smbConf,
    poolDir: host.poolDir,
    port: host.port,
  });
}

/** The `[global]` lines the service adds to smb.conf (its regenerator's and a configuration import's). */
export const sambaGlobalsOf = (host: SambaHost): Array<readonly [string, string]> | undefined =>
  sambaServiceGlobals(sambaModeOf(host), sambaLayoutOf(host));

/**
 * smb.conf for `snapshot` exactly as this host's service writes it (its file, pooled view and
 * `[global]` lines): what a configuration import renders from the database it prepared.
 */
export const renderSmbConfFor = (host: SambaHost, snapshot: AccessSnapshot): string =>
  renderSmbConfAt(snapshot, { file: host.smbConf, poolDir: host.poolDir, globals: sambaGlobalsOf(host) });

/** The Samba service of this host, reading the access snapshot through `loadSnapshot`. */
export function sambaServiceOptions(
  host: SambaHost,
  io: Pick<SambaServiceOptions, 'loadSnapshot' | 'log'> & { runner: CommandRunner },
): SambaServiceOptions {
  return {
    mode: sambaModeOf(host),
    layout: sambaLayoutOf(host),
    runner: io.runner,
    file: host.smbConf,
    poolDir: host.poolDir,
    root: host.root,
    loadSnapshot: io.loadSnapshot,
    log: io.log,
  };
}

/** The service as a daemon holds it: what other changes call, its start and its stop. */
export interface RunningSamba {
  /** Regenerates smb.conf, records it, and waits until smbd has loaded the grants. */
  regenerate(): Promise<void>;
  /** Asks Samba to reload (debounced); a no-op without an smbd. */
  reload(): void;
  /**
   * The start (`startSamba`): the sandbox's directories, one regeneration, then the sandboxed smbd.
   * `regenerate` and `reload` work before it (install them first).
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** One Samba service; `generated` runs after each file written (the drift watcher's record). */
export function sambaServiceFor(options: SambaServiceOptions, generated: () => void): RunningSamba {
  const samba = createSambaService(options);
  return {
    regenerate: regenerateAndSettle(samba, generated),
    reload: () => samba.reload(),
    start: () => startSamba(samba, { file: options.file, generated, log: options.log }),
    stop: () => samba.stop(),
  };
}
