/**
 * The `smb.conf` regenerator (06 §5.3): load the access snapshot, render, write and validate, then
 * ask Samba to reload. Concurrent requests are coalesced: a caller is answered after a run that
 * started after its request (so after its commit) has finished.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import { createCoalescer } from '../core/coalesce.ts';
import type { AccessSnapshot } from '../core/effective-access.ts';
import { renderSmbConf } from '../core/render-smb-conf.ts';
import { smbRegenerationFailed } from '../errors.ts';
import { createSmbConfWriter, type SmbConfWriteOutcome } from './smb-conf-writer.ts';

export interface SmbRegeneratorOptions {
  /** Reads every share, user, group, membership and grant in one read transaction. */
  loadSnapshot: () => AccessSnapshot | Promise<AccessSnapshot>;
  /** Host path of smb.conf (`HostPaths.sambaConf`); `smb.custom.conf` is looked up beside it. */
  file: string;
  /** Host path of the pooled view (`HostPaths.userPool`). */
  poolDir: string;
  /** Extra `[global]` lines (the sandboxed smbd's, `sambaSandboxGlobals`). */
  globals?: ReadonlyArray<readonly [string, string]>;
  runner: CommandRunner;
  testparmTimeoutMs?: number;
  /** Called after a file was replaced (e.g. a debounced `smbcontrol smbd reload-config`). */
  onWritten?: () => void;
  log?: (message: string, cause?: unknown) => void;
}

export interface SmbRegenerator {
  /** Coalesced regeneration; rejects with `500 smb_regeneration_failed` (details.reason). */
  regenerate(): Promise<SmbConfWriteOutcome>;
  /** Settles once no regeneration is running or queued. */
  idle(): Promise<void>;
}

export const customConfPath = (smbConf: string): string =>
  path.join(path.dirname(smbConf), 'smb.custom.conf');

export function createSmbRegenerator(options: SmbRegeneratorOptions): SmbRegenerator {
  const log = options.log ?? (() => undefined);
  const writer = createSmbConfWriter({
    file: options.file,
    runner: options.runner,
    log,
    ...(options.testparmTimeoutMs !== undefined ? { timeoutMs: options.testparmTimeoutMs } : {}),
  });
  const include = customConfPath(options.file);

  const runOnce = async (): Promise<SmbConfWriteOutcome> => {
    let snapshot: AccessSnapshot;
    let includeFile: string | null;
    try {
      // A read failure aborts before anything is written: a failure never opens the file further.
      snapshot = await options.loadSnapshot();
      includeFile = isFile(include) ? include : null;
    } catch (err) {
      log('smb.conf regeneration failed while reading the access rows', err);
      throw smbRegenerationFailed('write_failed');
    }
    const text = renderSmbConf(snapshot, {
      poolDir: options.poolDir,
      includeFile,
      ...(options.globals ? { globals: options.globals } : {}),
    });
    const outcome = await writer.write(text);
    if (outcome === 'written') options.onWritten?.();
    return outcome;
  };

  const coalescer = createCoalescer(runOnce);
  return { regenerate: () => coalescer.request(), idle: () => coalescer.idle() };
}

/**
 * A stat of a file in the Samba configuration directory (synchronous: microseconds, no round trip;
 * a missing file answers `undefined` instead of throwing, which costs more than the stat).
 */
function isFile(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}
