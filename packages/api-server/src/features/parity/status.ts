/** `GET /disks/array/parity`: what the last jobs recorded, never a snapraid run (status can take long). */
import { isoMillis } from '@appliance/common';
import { diffCounts } from '@appliance/parity';
import type { AppContext } from '../../context.ts';
import type { JobView } from '@appliance/jobs';
import { type ScrubParams, type SyncParams, scrubJob, syncJob } from './jobs.ts';
import { listSlots } from '../disks/store.ts';
import { readParityState } from './store.ts';

const DAY = 86_400_000;
const ENDED = ['succeeded', 'failed', 'cancelled', 'interrupted', 'blocked'] as const;

const num = (x: unknown): number | null => (typeof x === 'number' ? x : null);

export function parityStatus(ctx: AppContext) {
  const configured = listSlots(ctx.db).some((s) => s.role === 'parity');
  const state = readParityState(ctx.db);
  const lastSync = ctx.jobs.latest(syncJob, ENDED);
  const lastSuccess = ctx.jobs.latest(syncJob, ['succeeded']);
  const lastScrub = ctx.jobs.latest(scrubJob, ENDED);
  // a job stays in the runner until its follow-up is done, after its end was published: only one
  // still queued or running counts (else a page refreshed on the `done` event sees it running)
  const running =
    ctx.jobs
      .running()
      .find((j) => j.type.startsWith('parity.') && (j.state === 'queued' || j.state === 'running')) ?? null;
  const parity = !configured
    ? 'not_configured'
    : lastSuccess === null
      ? 'never_synced'
      : state.lastDiff?.changes
        ? 'changes_pending'
        : 'in_sync';
  const diff = state.lastDiff;
  const now = ctx.clock.now().getTime();
  const oldest = state.lastStatus?.oldestScrubAt ?? null;
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
    next: {
      sync: configured ? (ctx.scheduler.view('parity.sync')?.nextDueAt ?? null) : null,
      scrub: configured ? (ctx.scheduler.view('parity.scrub')?.nextDueAt ?? null) : null,
    },
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

/** The next due times in ISO form for the schedules (exported for the CLI's status table). */
export const iso = (d: Date | null) => (d ? isoMillis(d) : null);
