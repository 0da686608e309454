/**
 * The schedules of the sync and the scrub (register each with a `Scheduler`): due by the parity
 * settings in the appliance's time zone, counted from the array's creation, off without a parity
 * array. A scheduled scrub counts from the later of its last scheduled run and the last scrub job.
 */
import type { Schedule } from '@appliance/jobs';
import { nextScrubDue, nextSyncDue } from '../core/schedule.ts';
import type { ParityJobs, ParityStore } from '../ports.ts';
import { scrubJob, syncJob } from './kinds.ts';

export interface ParityScheduleDeps {
  store: Pick<ParityStore, 'settings'>;
  /** When the array with a parity disk was set up; null while there is none (no schedule). */
  arraySince(): Date | null;
  /** The appliance's IANA time zone. */
  timeZone(): string;
  jobs: Pick<ParityJobs, 'latest' | 'start'>;
  /** What the scheduled jobs show as their target (default the pool, `/mnt/user`). */
  target?: string;
}

export function paritySchedules(deps: ParityScheduleDeps): Schedule[] {
  const options = { target: deps.target ?? '/mnt/user', actor: null, trigger: 'schedule' } as const;
  const sync: Schedule = {
    name: syncJob.type,
    nextDue: (lastRunAt) => {
      const since = deps.arraySince();
      if (!since) return null;
      return nextSyncDue({
        settings: deps.store.settings(),
        timeZone: deps.timeZone(),
        lastScheduledAt: lastRunAt,
        since,
      });
    },
    run: async () => (await deps.jobs.start(syncJob, { force: false }, options)).view.id,
  };
  const scrub: Schedule = {
    name: scrubJob.type,
    nextDue: (lastRunAt) => {
      const since = deps.arraySince();
      if (!since) return null;
      const lastJob = deps.jobs.latest(scrubJob);
      const lastJobAt = lastJob?.startedAt ? new Date(lastJob.startedAt) : null;
      const last =
        lastRunAt && lastJobAt
          ? new Date(Math.max(lastRunAt.getTime(), lastJobAt.getTime()))
          : (lastRunAt ?? lastJobAt);
      return nextScrubDue({
        settings: deps.store.settings(),
        timeZone: deps.timeZone(),
        lastScrubAt: last,
        since,
      });
    },
    run: async () => {
      const settings = deps.store.settings();
      const params = { percent: settings.scrubPercent, olderThanDays: settings.scrubOlderThanDays };
      return (await deps.jobs.start(scrubJob, params, options)).view.id;
    },
  };
  return [sync, scrub];
}
