/**
 * Asks a running smbd to reload its configuration (06 §5.2 step 5): asynchronous, debounced to at
 * most once per interval, never awaited by a request; a failure is only logged.
 */
import fs from 'node:fs/promises';
import type { CommandRunner } from '@appliance/common';

export interface SambaReloaderOptions {
  runner: CommandRunner;
  /** smbd's pid file; default `/run/samba/smbd.pid`. */
  pidFile?: string;
  /** Minimum milliseconds between two reloads; default 1000. */
  intervalMs?: number;
  log?: (message: string, cause?: unknown) => void;
}

export interface SambaReloader {
  /** Schedules a reload (returns at once). */
  request(): void;
  /** Cancels a scheduled reload (shutdown). */
  stop(): void;
}

export function createSambaReloader(options: SambaReloaderOptions): SambaReloader {
  const interval = options.intervalMs ?? 1000;
  const pidFile = options.pidFile ?? '/run/samba/smbd.pid';
  const log = options.log ?? (() => undefined);
  let timer: NodeJS.Timeout | null = null;
  let lastAt = 0;

  const reload = async (): Promise<void> => {
    timer = null;
    lastAt = Date.now();
    try {
      if (!(await smbdRunning(pidFile))) return;
      const r = await options.runner.run('smbcontrol', ['smbd', 'reload-config'], { timeoutMs: 10_000 });
      if (r.exitCode !== 0) log(`smbcontrol smbd reload-config exited ${r.exitCode}: ${r.stderr.trim()}`);
    } catch (err) {
      log('asking smbd to reload its configuration failed', err);
    }
  };

  return {
    request() {
      if (timer) return;
      const wait = Math.max(0, lastAt + interval - Date.now());
      timer = setTimeout(() => void reload(), wait);
      timer.unref();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** smbd runs when its pid file names a live process. */
export async function smbdRunning(pidFile: string): Promise<boolean> {
  const text = await fs.readFile(pidFile, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
