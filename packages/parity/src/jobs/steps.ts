/**
 * The steps the parity jobs share (and a disk job reuses): a snapraid run's handlers for a job, a
 * failed run as the job's error, the whole-array check, the recorded status, events that never
 * fail a job.
 */
import { AppError, isoMillis } from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import * as parityEvents from '../core/messages.ts';
import type { RaisedEvent } from '../core/messages.ts';
import { createSnapraid, type RunHandlers, type SnapraidRun } from '../node/snapraid.ts';
import type { ParityJobDeps, ParitySlot } from '../ports.ts';

/** The snapraid adapter of these deps. */
export const snapraidOf = (deps: Pick<ParityJobDeps, 'runner' | 'configFile'>) =>
  createSnapraid({ runner: deps.runner, configFile: deps.configFile });

/** Raises an event; a failure is logged, never the job's. */
export async function raise(deps: Pick<ParityJobDeps, 'events' | 'log'>, event: RaisedEvent): Promise<void> {
  try {
    await deps.events.raise(event);
  } catch (err) {
    deps.log.error('parity event not raised', { eventType: event.eventType, error: String(err) });
  }
}

/** A snapraid run's handlers for a job: output lines, the process id, progress. */
export function handlers(job: JobHandle): RunHandlers {
  return {
    signal: job.signal,
    onOutput: (line) => job.output(line),
    onSpawn: (pid) => job.pid(pid),
    onProgress: (p) => job.progress({ ...p }),
  };
}

/**
 * A snapraid run that failed (not cancelled) ends the job with snapraid's own error line. An
 * `AppError` (status 500) so that a job and a disk job record it as the job's error as they did.
 */
export function failed(run: SnapraidRun, code: string, what: string): AppError | null {
  if (run.cancelled || run.errorLine === null) return null;
  return new AppError(500, code, `snapraid ${what} failed: ${run.errorLine}`, {
    exitCode: run.exitCode,
    snapraid: run.errorLine,
  });
}

/** The parity and data slots whose disk is not there now. */
export async function missingSlots(slots: ParityJobDeps['slots']): Promise<ParitySlot[]> {
  const array = slots.list().filter((s) => s.role !== 'cache');
  const present = await Promise.all(array.map((s) => slots.present(s)));
  return array.filter((_, i) => !present[i]);
}

/**
 * Refuses a job on an array with a missing disk (`array_degraded`), reporting the condition
 * `array:degraded` (raised once while it holds).
 */
export async function requireWholeArray(deps: ParityJobDeps, job: JobHandle, title: string): Promise<void> {
  job.phase('check');
  const missing = await missingSlots(deps.slots);
  if (missing.length === 0) return;
  const list = missing.map((m) => ({ role: m.role, mountpoint: m.mountpoint, device: m.device }));
  // a condition, raised once: the disks watcher may have raised it already, and clears it when the
  // slots are back
  try {
    await deps.events.hold('array:degraded', parityEvents.arrayDegraded({ missing: list, job: title }));
  } catch (err) {
    deps.log.error('array_degraded not reported', { error: String(err) });
  }
  throw new AppError(
    409,
    'array_degraded',
    `The ${title} did not start: ${list.map((m) => `the ${m.role} disk ${m.mountpoint} (${m.device})`).join(', ')} ${list.length === 1 ? 'is' : 'are'} not mounted. Bring the disk back (or replace it) and run it again.`,
    { missing: list },
  );
}

/** Runs `snapraid status` and records it; a failed or cancelled status is skipped (a bonus). */
export async function recordStatus(deps: ParityJobDeps, job: JobHandle): Promise<void> {
  job.phase('status', { cancellable: true });
  const { run, status } = await snapraidOf(deps).status(handlers(job));
  if (run.cancelled || run.errorLine !== null) return;
  const at = isoMillis(deps.clock.now());
  await deps.store.update({
    lastStatus: {
      ...status,
      oldestScrubAt: status.oldestScrubAt ? isoMillis(status.oldestScrubAt) : null,
      at,
    },
  });
}
