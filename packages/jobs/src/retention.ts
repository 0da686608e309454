/**
 * How long ended jobs are kept (09 "Jobs"): a job's row stays 90 days after it was created, and the
 * newest 20 of each type stay whatever their age (the last sync or backup is always there). Pruned
 * once at start, then daily.
 */
import type { Clock, Timers } from './ports.ts';

const DAY_MS = 24 * 3600 * 1000;
/** Days an ended job is kept. */
export const RETENTION_DAYS = 90;
/** Ended jobs kept of each type, however old. */
export const KEEP_PER_TYPE = 20;
/** How often the retention runs. */
export const PRUNE_INTERVAL_MS = DAY_MS;

/** The moment before which ended jobs (beyond the newest of each type) are deleted. */
export const retentionCutoff = (now: Date): Date => new Date(now.getTime() - RETENTION_DAYS * DAY_MS);

/**
 * Prunes now and every day; a failed prune is retried at the next one. Returns the stop. `prune` is
 * the runner's (`JobRunner.prune`).
 */
export function startRetention(
  runner: { prune(olderThan: Date, keep?: number): Promise<number> },
  clock: Pick<Clock, 'now'>,
  timers: Pick<Timers, 'every'>,
): () => void {
  const prune = () => void runner.prune(retentionCutoff(clock.now()), KEEP_PER_TYPE).catch(() => undefined);
  prune();
  const timer = timers.every(PRUNE_INTERVAL_MS, prune);
  return () => timer.cancel();
}
