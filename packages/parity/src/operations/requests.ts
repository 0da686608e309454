/**
 * Parity on request (issue 27): a sync or a scrub asked for by an operator starts its job only on
 * an array with a parity disk and with snapraid installed; the scrub's unset values come from the
 * settings; saving the settings records what changed with its audit row in ONE transaction. The
 * schedules count from the array's creation while it has a parity disk.
 */
import { type CommandRunner, refuse } from '@appliance/common';
import type { JobKind, JobView } from '@appliance/jobs';
import type { ParitySettings } from '../core/settings.ts';
import { type ScrubParams, type SyncParams, scrubJob, syncJob } from '../jobs/kinds.ts';
import { requireSnapraid } from '../node/snapraid.ts';
import type { ParityStore, SlotsReader } from '../ports.ts';

/** The job runner as a request starts a job (a `JobRunner` has this shape). */
export interface RequestJobs<A> {
  start<P, R>(
    kind: JobKind<P, R>,
    params: P,
    options: { target: string; actor: A | null; audit?: Record<string, unknown> },
  ): Promise<{ view: JobView<P, R> }>;
}

/** What a sync or scrub request reads and starts. */
export interface ParityRequestPorts<A> {
  slots: Pick<SlotsReader, 'list'>;
  runner: CommandRunner;
  store: Pick<ParityStore, 'settings'>;
  jobs: RequestJobs<A>;
}

const POOL = '/mnt/user';

/** A parity disk in the array and snapraid installed, or the request is refused before any job. */
export async function requireParityArray(
  ports: Pick<ParityRequestPorts<unknown>, 'slots' | 'runner'>,
  what: 'sync' | 'scrub',
): Promise<void> {
  if (!ports.slots.list().some((s) => s.role === 'parity'))
    throw refuse(
      'no_array',
      `No array with a parity disk is set up: set one up first (POST /api/v1/disks/array), then ${
        what === 'sync' ? 'its parity can be synced' : 'it can be scrubbed once its parity has been synced'
      }.`,
    );
  await requireSnapraid(ports.runner);
}

/** Starts a sync (the deletion guard runs first unless `force`; a forced one says so in its audit row). */
export async function requestSync<A>(
  ports: ParityRequestPorts<A>,
  actor: A | null,
  body: { force?: boolean | undefined },
): Promise<JobView<SyncParams, unknown>> {
  await requireParityArray(ports, 'sync');
  const force = body.force === true;
  const params: SyncParams = { force };
  const started = await ports.jobs.start(syncJob, params, {
    target: POOL,
    actor,
    ...(force ? { audit: { guard: 'skipped (force)' } } : {}),
  });
  return started.view;
}

/** Starts a scrub of `percent` % of data not scrubbed for `olderThanDays` days (each defaults to the settings). */
export async function requestScrub<A>(
  ports: ParityRequestPorts<A>,
  actor: A | null,
  body: { percent?: number | undefined; olderThanDays?: number | undefined },
): Promise<JobView<ScrubParams, unknown>> {
  await requireParityArray(ports, 'scrub');
  const settings = ports.store.settings();
  const params: ScrubParams = {
    percent: body.percent ?? settings.scrubPercent,
    olderThanDays: body.olderThanDays ?? settings.scrubOlderThanDays,
  };
  return (await ports.jobs.start(scrubJob, params, { target: POOL, actor })).view;
}

/** One transaction over the parity settings and the audit log. */
export interface ParitySettingsTx<A> {
  settings(): ParitySettings;
  write(next: ParitySettings, at: string): void;
  audit(
    actor: A | null,
    entry: { operation: string; target: string; details: Record<string, unknown> },
  ): void;
}

/** Where the settings are saved (the server's: `parity_settings` and `audit_log`). */
export interface ParitySettingsPorts<A> {
  store: Pick<ParityStore, 'settings'>;
  /** Runs `fn` in ONE transaction. */
  transaction<T>(fn: (tx: ParitySettingsTx<A>) => T): Promise<T>;
  clock: { now(): Date };
}

/** Replaces the schedule and thresholds; the audit row names the fields that changed. Answers the saved settings. */
export async function saveParitySettings<A>(
  ports: ParitySettingsPorts<A>,
  actor: A | null,
  next: ParitySettings,
): Promise<ParitySettings> {
  await ports.transaction((tx) => {
    const before = tx.settings();
    tx.write(next, ports.clock.now().toISOString());
    const changed = Object.fromEntries(
      Object.entries(next).filter(([k, val]) => before[k as keyof ParitySettings] !== val),
    );
    tx.audit(actor, { operation: 'settings.parity', target: 'parity', details: { changed } });
  });
  return ports.store.settings();
}

/** When the schedules start counting: the array's creation, while it has a parity disk (else null: no schedule). */
export function paritySince(slots: Pick<SlotsReader, 'list'>, createdAt: string | null): Date | null {
  return createdAt !== null && slots.list().some((s) => s.role === 'parity') ? new Date(createdAt) : null;
}
