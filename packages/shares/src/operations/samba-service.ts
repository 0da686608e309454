/**
 * smb.conf and Samba as one service (06 §5.3, issues 24 and 32): one coalescing regenerator, the
 * debounced reload of the smbd that reads the file, and with a sandbox layout the service's own
 * smbd. `startSamba` is what a daemon runs at its start: the sandbox's directories, one
 * regeneration, then the sandboxed smbd.
 */
import fs from 'node:fs';
import type { CommandRunner } from '@appliance/common';
import type { AccessSnapshot } from '../access/core/effective-access.ts';
import { type SambaSandboxLayout, sambaSandboxGlobals } from '../access/core/samba-sandbox.ts';
import { createSambaReloader } from '../access/node/samba-reload.ts';
import { createSandboxSmbd, type SandboxSmbd } from '../access/node/sandbox-smbd.ts';
import { renderSmbConf } from '../access/core/render-smb-conf.ts';
import { createSmbRegenerator, customConfPath, type SmbRegenerator } from '../access/node/smb-regenerator.ts';

/**
 * Which smbd the service drives: `host` (the machine's smbd, reloaded), `sandbox` (its own smbd on
 * a loopback port) or `none` (smb.conf is written and validated, nothing reads it).
 */
export type SambaMode = 'host' | 'sandbox' | 'none';

export interface SambaServiceOptions {
  mode: SambaMode;
  /** The sandboxed smbd's layout (mode `sandbox`). */
  layout: SambaSandboxLayout | null;
  runner: CommandRunner;
  /** Host path of smb.conf. */
  file: string;
  /** Host path of the pooled view. */
  poolDir: string;
  /** The root prefix (the sandbox makes directories inside it searchable). */
  root: string;
  /** Reads every share, user, group, membership and grant consistently. */
  loadSnapshot: () => AccessSnapshot | Promise<AccessSnapshot>;
  log: (level: 'info' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

export interface SambaService {
  regenerator: SmbRegenerator;
  /** Asks Samba to reload (debounced); a no-op without an smbd. */
  reload(): void;
  /** When the file grants access smbd has not loaded: reloads at once and waits until it has (issue 32). */
  settle(): Promise<void>;
  /** The sandboxed smbd, else null. */
  smbd: SandboxSmbd | null;
  stop(): Promise<void>;
}

/** The `[global]` lines the service adds to smb.conf: the sandboxed smbd's, or none. */
export const sambaServiceGlobals = (
  mode: SambaMode,
  layout: SambaSandboxLayout | null,
): Array<readonly [string, string]> | undefined =>
  mode === 'sandbox' && layout ? sambaSandboxGlobals(layout) : undefined;

/** Builds the regenerator and, in mode `sandbox`, the service's own smbd. */
export function createSambaService(options: SambaServiceOptions): SambaService {
  const { mode, runner } = options;
  const log = (message: string, cause?: unknown) =>
    options.log('error', message, cause === undefined ? undefined : { error: String(cause) });
  const layout = mode === 'sandbox' ? options.layout : null;
  const reloader =
    mode === 'none'
      ? null
      : createSambaReloader({
          runner,
          log,
          file: options.file,
          ...(layout ? { smbConf: layout.smbConf, pidFile: layout.pidFile } : {}),
        });
  const globals = sambaServiceGlobals(mode, layout);
  const regenerator = createSmbRegenerator({
    loadSnapshot: options.loadSnapshot,
    file: options.file,
    poolDir: options.poolDir,
    runner,
    log,
    ...(globals ? { globals } : {}),
    ...(reloader ? { onWritten: () => reloader.request() } : {}),
  });
  const smbd = layout
    ? createSandboxSmbd({
        runner,
        layout,
        root: options.root,
        // smbd (re)started with the file as it is now: the baseline of the next reload's revocations.
        onStarted: () => reloader?.loaded(readOrNull(layout.smbConf)),
        log: options.log,
      })
    : null;
  return {
    regenerator,
    reload: () => reloader?.request(),
    async settle() {
      await reloader?.settle();
    },
    smbd,
    async stop() {
      await regenerator.idle();
      reloader?.stop();
      await reloader?.idle();
      await smbd?.stop();
    },
  };
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The start: the sandbox's Samba directories first (the file names them and testparm checks they
 * exist), one regeneration (a failure is logged and the service still starts, except with its own
 * smbd, which without the sandbox's file would use the machine's Samba directories), then the
 * sandboxed smbd. `generated` runs after each file written (the drift watcher's record).
 */
export async function startSamba(
  samba: SambaService,
  options: { file: string; generated: () => void; log: SambaServiceOptions['log'] },
): Promise<void> {
  await samba.smbd?.prepare().catch((err: unknown) => {
    throw new Error(`The sandboxed smbd cannot start: ${(err as Error).message}`);
  });
  const regenerated = await samba.regenerator.regenerate().then(
    () => {
      options.generated();
      return null;
    },
    (err: unknown) => {
      options.log('error', 'smb.conf regeneration at startup failed', { error: String(err) });
      return err;
    },
  );
  if (!samba.smbd) return;
  if (regenerated !== null)
    throw new Error(
      `The sandboxed smbd cannot start: ${options.file} could not be generated (see the log). Fix the cause and start the service again.`,
    );
  await samba.smbd.start().catch((err: unknown) => {
    throw new Error(`The sandboxed smbd could not start: ${(err as Error).message}`);
  });
}

/** A regeneration as other changes need it: the file, its record, then smbd has loaded the grants. */
export function regenerateAndSettle(samba: SambaService, generated: () => void): () => Promise<void> {
  return async () => {
    await samba.regenerator.regenerate();
    // what the service wrote, for the drift watcher (issue 22)
    generated();
    // a grant is answered once smbd has loaded it: the user's next connection gets in (issue 32)
    await samba.settle();
  };
}

/**
 * smb.conf for a snapshot exactly as the regenerator writes it at `file` (the `smb.custom.conf`
 * beside it included when it is a file): what a configuration import validates before its swap.
 */
export function renderSmbConfAt(
  snapshot: AccessSnapshot,
  options: { file: string; poolDir: string; globals?: ReadonlyArray<readonly [string, string]> | undefined },
): string {
  const include = customConfPath(options.file);
  const includeFile = fs.statSync(include, { throwIfNoEntry: false })?.isFile() ? include : null;
  return renderSmbConf(snapshot, {
    poolDir: options.poolDir,
    includeFile,
    ...(options.globals ? { globals: options.globals } : {}),
  });
}
