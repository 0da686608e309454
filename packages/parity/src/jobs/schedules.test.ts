import type { JobKind, JobView } from '@appliance/jobs';
import { describe, expect, it } from 'vitest';
import type { ParityJobs } from '../ports.ts';
import { MemoryParityStore } from '../test-support/index.ts';
import { paritySchedules } from './schedules.ts';

/** A jobs port that records what the schedules start and answers `latest` from a table. */
function fakeJobs(latestScrub: Partial<JobView> | null = null) {
  const started: Array<{ type: string; params: unknown; options: unknown }> = [];
  const jobs: Pick<ParityJobs, 'latest' | 'start'> = {
    latest: <P, R>(kind: JobKind<P, R>) =>
      (kind.type === 'parity.scrub' ? latestScrub : null) as JobView<P, R> | null,
    start: async (kind, params, options) => {
      started.push({ type: kind.type, params, options });
      return { view: { id: `job-${started.length}` } };
    },
  };
  return { jobs, started };
}

const since = new Date('2026-11-25T10:00:00Z');

describe('paritySchedules', () => {
  it('is off without a parity array', () => {
    const { jobs } = fakeJobs();
    const [sync, scrub] = paritySchedules({
      store: new MemoryParityStore(),
      arraySince: () => null,
      timeZone: () => 'UTC',
      jobs,
    });
    expect([sync!.nextDue(null), scrub!.nextDue(null)]).toEqual([null, null]);
  });

  it('syncs nightly at the settings’ time in the appliance’s time zone, and starts a guarded sync', async () => {
    const { jobs, started } = fakeJobs();
    const [sync] = paritySchedules({
      store: new MemoryParityStore({ syncTime: '02:30' }),
      arraySince: () => since,
      timeZone: () => 'Europe/Vienna',
      jobs,
    });
    expect(sync!.name).toBe('parity.sync');
    expect(sync!.nextDue(null)).toEqual(new Date('2026-11-26T01:30:00Z'));
    expect(await sync!.run(new Date())).toBe('job-1');
    expect(started).toEqual([
      {
        type: 'parity.sync',
        params: { force: false },
        options: { target: '/mnt/user', actor: null, trigger: 'schedule' },
      },
    ]);
  });

  it('counts a scrub from the later of its last scheduled run and the last scrub job, with the settings’ share', async () => {
    const { jobs, started } = fakeJobs({ startedAt: '2026-12-05T12:00:00.000Z' });
    const [, scrub] = paritySchedules({
      store: new MemoryParityStore({ scrubEveryDays: 7, scrubPercent: 12, scrubOlderThanDays: 3 }),
      arraySince: () => since,
      timeZone: () => 'UTC',
      jobs,
      target: '/srv/pool',
    });
    const fromRun = scrub!.nextDue(new Date('2026-12-01T04:00:00Z'));
    const fromJob = scrub!.nextDue(new Date('2026-12-06T04:00:00Z'));
    // a scrub job started by hand on the 5th counts, not the scheduled run of the 1st (7 days later)
    expect(fromRun).toEqual(new Date('2026-12-12T04:00:00Z'));
    // a scheduled run after it counts
    expect(fromJob).toEqual(new Date('2026-12-13T04:00:00Z'));
    await scrub!.run(new Date());
    expect(started).toEqual([
      {
        type: 'parity.scrub',
        params: { percent: 12, olderThanDays: 3 },
        options: { target: '/srv/pool', actor: null, trigger: 'schedule' },
      },
    ]);
  });
});
