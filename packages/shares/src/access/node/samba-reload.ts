/**
 * Asks a running smbd to reload its configuration (06 §5.2 step 5): asynchronous, debounced to at
 * most once per interval, never awaited by a request; a failure is only logged.
 *
 * After the reload, the connections that are already open are brought in line as far as Samba
 * allows (`core/revocations.ts`): `close-denied-share` for shares where someone lost access,
 * `close-share` for shares that were closed or removed. Which ones is decided by comparing the
 * generated file with the one smbd loaded last.
 */
import fs from 'node:fs/promises';
import type { CommandRunner } from '@appliance/common';
import { accessRevocations } from '../core/revocations.ts';
import { SMBD_PID_FILE } from '../core/samba-sandbox.ts';

export interface SambaReloaderOptions {
  runner: CommandRunner;
  /** smbd's pid file; default `/run/samba/smbd.pid`. */
  pidFile?: string;
  /** Minimum milliseconds between two reloads; default 1000. */
  intervalMs?: number;
  /**
   * smb.conf given to `smbcontrol -s` (it finds smbd through that file's `pid directory`): the
   * sandbox's file; default Samba's own.
   */
  smbConf?: string;
  /**
   * The generated smb.conf. With it, each reload also closes the open connections the change denies;
   * without it, only the reload is asked for.
   */
  file?: string;
  log?: (message: string, cause?: unknown) => void;
}

export interface SambaReloader {
  /** Schedules a reload (returns at once). */
  request(): void;
  /**
   * Records the configuration smbd has just loaded (it started with this file), so the next reload
   * closes only the connections that this file allowed and the next one denies.
   */
  loaded(text: string | null): void;
  /** Settles once no reload is scheduled or running. */
  idle(): Promise<void>;
  /** Cancels a scheduled reload (shutdown). */
  stop(): void;
}

const SMBCONTROL_TIMEOUT = { timeoutMs: 10_000 };

export function createSambaReloader(options: SambaReloaderOptions): SambaReloader {
  const interval = options.intervalMs ?? 1000;
  const pidFile = options.pidFile ?? SMBD_PID_FILE;
  const log = options.log ?? (() => undefined);
  const conf = options.smbConf ? ['-s', options.smbConf] : [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let lastAt = 0;
  /** The file smbd loaded last; null = not known. */
  let loadedText: string | null = null;

  const smbcontrol = async (args: string[]): Promise<void> => {
    const r = await options.runner.run('smbcontrol', [...conf, 'smbd', ...args], SMBCONTROL_TIMEOUT);
    if (r.exitCode !== 0 || r.timedOut)
      log(`smbcontrol smbd ${args.join(' ')} exited ${r.exitCode}: ${r.stderr.trim() || r.stdout.trim()}`);
  };

  const reload = async (): Promise<void> => {
    timer = null;
    lastAt = Date.now();
    try {
      const text = options.file ? await fs.readFile(options.file, 'utf8').catch(() => null) : null;
      if (!(await smbdRunning(pidFile))) {
        // An smbd started later loads the file as it is now.
        loadedText = text;
        return;
      }
      await smbcontrol(['reload-config']);
      if (text === null) return;
      // Sent after the reload through the same parent smbd, so each connection's process has the
      // new configuration when it checks its users again.
      const { closeShare, closeDenied } = accessRevocations(loadedText, text);
      for (const name of closeShare) await smbcontrol(['close-share', name]);
      for (const name of closeDenied) await smbcontrol(['close-denied-share', name]);
      loadedText = text;
    } catch (err) {
      log('asking smbd to reload its configuration failed', err);
    }
  };

  return {
    request() {
      if (timer) return;
      const wait = Math.max(0, lastAt + interval - Date.now());
      timer = setTimeout(() => {
        const run = (running ?? Promise.resolve()).then(reload);
        running = run;
        void run.finally(() => {
          if (running === run) running = null;
        });
      }, wait);
      timer.unref();
    },
    loaded(text) {
      loadedText = text;
    },
    async idle() {
      while (timer || running) {
        if (running) await running;
        else await new Promise((r) => setTimeout(r, 10));
      }
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** smbd runs when its pid file names a live process. */
export async function smbdRunning(pidFile: string): Promise<boolean> {
  return (await smbdPid(pidFile)) !== null;
}

/** The pid in smbd's pid file when that process is alive, else null. */
export async function smbdPid(pidFile: string): Promise<number | null> {
  const text = await fs.readFile(pidFile, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
