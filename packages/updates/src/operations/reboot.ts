/** The reboot itself: `systemctl reboot` through the CommandRunner (a test puts a systemctl shim first on the tool path). */
import fs from 'node:fs';
import path from 'node:path';
import { AppError, type CommandRunner, HOST_PATH } from '@appliance/common';

/** The system's own systemctl: in a system directory, or the same file through a link. */
function isSystemSystemctl(found: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  };
  const dirs = HOST_PATH.split(':');
  if (dirs.includes(path.dirname(found))) return true;
  const target = real(found);
  return dirs.some((d) => {
    const sys = real(path.join(d, 'systemctl'));
    return sys !== null && sys === target;
  });
}

/**
 * `systemctl reboot`. In a sandbox (`sandbox: true`, a root prefix) it runs only a `systemctl`
 * found outside the system directories (a test's shim first on the tool path): a sandbox never
 * reboots the machine it runs on; otherwise `501 not_configured` and nothing runs.
 */
export async function rebootNow(runner: CommandRunner, options: { sandbox: boolean }): Promise<void> {
  if (options.sandbox) {
    const found = await runner.resolve('systemctl');
    if (found === null || isSystemSystemctl(found))
      throw new AppError(
        501,
        'not_configured',
        'This service runs in a sandbox (a root prefix): it never reboots the machine it runs on.',
        { systemctl: found },
      );
  }
  const r = await runner.run('systemctl', ['reboot'], { timeoutMs: 60_000 });
  if (r.exitCode !== 0)
    throw new AppError(
      500,
      'reboot_failed',
      `systemctl reboot failed: ${r.stderr.trim() || `exit code ${r.exitCode}`}`,
    );
}

/** How far ahead a reboot may be scheduled. */
export const MAX_REBOOT_AHEAD_DAYS = 30;

/**
 * When a requested reboot is due: `at` (RFC 3339) no more than 30 days ahead; a time in the past or
 * none means now. Returns an error sentence for a time too far ahead.
 */
export function rebootDueAt(at: string | undefined, now: Date): { at: Date } | { error: string } {
  if (at === undefined) return { at: now };
  const t = Date.parse(at);
  if (Number.isNaN(t)) return { error: 'must be an RFC 3339 time, e.g. 2026-01-31T03:00:00Z' };
  if (t - now.getTime() > MAX_REBOOT_AHEAD_DAYS * 24 * 3600 * 1000)
    return { error: `must be within ${MAX_REBOOT_AHEAD_DAYS} days from now` };
  return { at: new Date(Math.max(t, now.getTime())) };
}
