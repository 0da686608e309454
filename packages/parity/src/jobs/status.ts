/**
 * The parity status as recorded by the last jobs (never a snapraid run: status can take long):
 * in sync or not, last sync and scrub, pending changes, the running job, the next scheduled runs.
 */
import type { Clock } from '@appliance/common';
import type { JobState, JobView } from '@appliance/jobs';
import { diffCounts } from '../core/diff.ts';
import type { ParityJobs, ParityStore, SlotsReader } from '../ports.ts';
import { type ScrubParams, type SyncParams, scrubJob, syncJob } from './kinds.ts';

const DAY = 86_400_000;
const ENDED: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'interrupted', 'blocked'];

const num = (x: unknown): number | null => (typeof x === 'number' ? x : null);

export interface ParityStatusDeps {
  slots: Pick<SlotsReader, 'list'>;
  store: Pick<ParityStore, 'state'>;
  jobs: Pick<ParityJobs, 'latest' | 'running'>;
  /** The next due time of a schedule by name (`parity.sync`, `parity.scrub`); a `Scheduler` has it. */
  schedules: { view(name: string): { nextDueAt: string | null } | null };
  clock: Clock;
}

export type ParityStatus = ReturnType<typeof parityStatus>;

export function parityStatus(deps: ParityStatusDeps) {
  const configured = deps.slots.list().some((s) => s.role === 'parity');
  const state = deps.store.state();
  const lastSync = deps.jobs.latest(syncJob, ENDED);
  const lastSuccess = deps.jobs.latest(syncJob, ['succeeded']);
  const lastScrub = deps.jobs.latest(scrubJob, ENDED);
  const running = deps.jobs.running().find((j) => j.type.startsWith('parity.')) ?? null;
  const parity = !configured
    ? 'not_configured'
    : lastSuccess === null
      ? 'never_synced'
      : state.lastDiff?.changes
        ? 'changes_pending'
        : 'in_sync';
  const diff = state.lastDiff;
  const now = deps.clock.now().getTime();
  const oldest = state.lastStatus?.oldestScrubAt ?? null;
  const next = (name: string) => (configured ? (deps.schedules.view(name)?.nextDueAt ?? null) : null);
  return {
    configured,
    parity,
    lastSync: lastSync ? syncView(lastSync) : null,
    lastSuccessfulSyncAt: lastSuccess?.endedAt ?? null,
    changes: diff ? { ...diffCounts(diff), at: diff.at, jobId: diff.jobId } : null,
    blockedSince: state.blockedSince,
    lastScrub: lastScrub ? scrubView(lastScrub) : null,
    oldestScrubAt: oldest,
    oldestScrubAgeDays: oldest ? Math.round(((now - Date.parse(oldest)) / DAY) * 10) / 10 : null,
    unscrubbedPercent: state.lastStatus?.unscrubbedPercent ?? null,
    running,
    next: { sync: next(syncJob.type), scrub: next(scrubJob.type) },
  };
}

function syncView(j: JobView<SyncParams, unknown>) {
  const r = (j.result ?? {}) as Record<string, unknown>;
  const seconds =
    j.startedAt && j.endedAt
      ? Math.round((Date.parse(j.endedAt) - Date.parse(j.startedAt)) / 100) / 10
      : null;
  return {
    jobId: j.id,
    state: j.state,
    trigger: j.trigger,
    startedAt: j.startedAt,
    endedAt: j.endedAt,
    seconds,
    bytes: num(r['bytes']),
    forced: j.params.force === true,
    error: j.error ? { code: j.error.code, message: j.error.message } : null,
  };
}

function scrubView(j: JobView<ScrubParams, unknown>) {
  const r = (j.result ?? {}) as Record<string, unknown>;
  return {
    jobId: j.id,
    state: j.state,
    startedAt: j.startedAt,
    endedAt: j.endedAt,
    percent: num(j.params.percent),
    olderThanDays: num(j.params.olderThanDays),
    dataErrors: num(r['dataErrors']),
    ioErrors: num(r['ioErrors']),
    fileErrors: num(r['fileErrors']),
  };
}
