/**
 * Asks a running smbd to reload its configuration (06 §5.2 step 5): asynchronous, debounced to at
 * most once per interval, never awaited by a request that only takes access away; a failure is
 * only logged.
 *
 * After the reload, the connections that are already open are brought in line as far as Samba
 * allows (`core/revocations.ts`): `close-denied-share` for shares where someone lost access,
 * `close-share` for shares that were closed or removed. Which ones is decided by comparing the
 * generated file with the one smbd loaded last.
 *
 * A change that grants access (a closed share opened, a user added to a share; `accessGranted`) is
 * not left to the debounce: `settle()` reloads at once and resolves when smbd has loaded it, so the
 * request that made the change answers only when the user's next connection gets in (issue 32:
 * without it a newly opened share answered `NT_STATUS_BAD_NETWORK_NAME` for about 1.2 s after the
 * PUT). `smbcontrol reload-config` only posts a message; smbd's parent handles its messages one at a
 * time and reloads synchronously in the handler, so its answer to a `ping` sent after the reload
 * (`PONG`) means the reload is done, and every connection forked after it has the new file.
 * Coalesced like the regeneration: the grants of one group commit share one reload.
 */
import fs from 'node:fs/promises';
import type { CommandRunner } from '@appliance/common';
import { createCoalescer } from '../core/coalesce.ts';
import { accessGranted, accessRevocations } from '../core/revocations.ts';
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
  /**
   * When the generated file grants access that smbd has not loaded (or smbd's file is not known):
   * reloads now and resolves `true` once smbd answered a ping sent after the reload; `false` when
   * that took longer than `timeoutMs` (default 3000) or failed (logged; the debounced reload still
   * follows). Resolves `true` at once when nothing is granted or smbd is not running.
   */
  settle(timeoutMs?: number): Promise<boolean>;
  /** Settles once no reload is scheduled or running. */
  idle(): Promise<void>;
  /** Cancels a scheduled reload (shutdown). */
  stop(): void;
}

const SMBCONTROL_TIMEOUT = { timeoutMs: 10_000 };
/** Seconds smbcontrol waits for smbd's answer to the ping that confirms a reload. */
const PING_WAIT_SECONDS = 3;

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

  const smbcontrol = async (args: string[], extra: string[] = []): Promise<boolean> => {
    const r = await options.runner.run(
      'smbcontrol',
      [...conf, ...extra, 'smbd', ...args],
      SMBCONTROL_TIMEOUT,
    );
    const ok = r.exitCode === 0 && !r.timedOut;
    if (!ok)
      log(`smbcontrol smbd ${args.join(' ')} exited ${r.exitCode}: ${r.stderr.trim() || r.stdout.trim()}`);
    return ok;
  };

  /** Reloads; with `confirm`, resolves true only once smbd answered a ping sent after the reload. */
  const reload = async (confirm = false): Promise<boolean> => {
    lastAt = Date.now();
    try {
      const text = options.file ? await fs.readFile(options.file, 'utf8').catch(() => null) : null;
      if (!(await smbdRunning(pidFile))) {
        // An smbd started later loads the file as it is now.
        loadedText = text;
        return true;
      }
      let loaded = await smbcontrol(['reload-config']);
      if (loaded && confirm) loaded = await smbcontrol(['ping'], ['-t', String(PING_WAIT_SECONDS)]);
      if (text === null) return loaded;
      // Sent after the reload through the same parent smbd, so each connection's process has the
      // new configuration when it checks its users again.
      const { closeShare, closeDenied } = accessRevocations(loadedText, text);
      for (const name of closeShare) await smbcontrol(['close-share', name]);
      for (const name of closeDenied) await smbcontrol(['close-denied-share', name]);
      loadedText = text;
      return loaded;
    } catch (err) {
      log('asking smbd to reload its configuration failed', err);
      return false;
    }
  };

  /**
   * Runs `reload` after the one running, never two at once; `when` (checked once it is this run's
   * turn) can skip it. A confirmed reload covers a scheduled one.
   */
  const serialized = (confirm: boolean, when?: () => Promise<boolean>): Promise<boolean> => {
    const run = (running ?? Promise.resolve()).then(async () => {
      if (when && !(await when())) return true;
      if (confirm && timer) {
        clearTimeout(timer);
        timer = null;
      }
      return reload(confirm);
    });
    running = run.then(() => undefined);
    const mine = running;
    void mine.finally(() => {
      if (running === mine) running = null;
    });
    return run;
  };

  /** Whether the file grants access that smbd has not loaded (or its loaded file is unknown). */
  const grantPending = async (): Promise<boolean> => {
    if (!options.file) return false;
    const text = await fs.readFile(options.file, 'utf8').catch(() => null);
    return text !== null && accessGranted(loadedText, text);
  };

  const confirmed = createCoalescer(async () =>
    // a run queued behind one that already loaded the grant has nothing left to do
    serialized(true, grantPending),
  );

  return {
    request() {
      if (timer) return;
      const wait = Math.max(0, lastAt + interval - Date.now());
      timer = setTimeout(() => {
        timer = null;
        void serialized(false);
      }, wait);
      timer.unref();
    },
    loaded(text) {
      loadedText = text;
    },
    async settle(timeoutMs = 3000) {
      if (!(await grantPending())) return true;
      if (!(await smbdRunning(pidFile))) return true;
      let timeout: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timeout = setTimeout(() => resolve(false), timeoutMs);
        timeout.unref();
      });
      try {
        const ok = await Promise.race([confirmed.request(), late]);
        if (!ok) log(`smbd did not confirm loading an access grant within ${timeoutMs} ms`);
        return ok;
      } finally {
        clearTimeout(timeout);
      }
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
