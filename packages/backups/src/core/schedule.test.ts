import { describe, expect, it } from 'vitest';
import { DEFAULT_DRILL } from './plan.ts';
import { nextBackupDue, nextDrillDue } from './schedule.ts';
import { isStale, staleTransitions } from './staleness.ts';

const daily = { enabled: true, schedule: { kind: 'daily', time: '03:30' } as const };
const weekly = { enabled: true, schedule: { kind: 'weekly', weekday: 'sunday', time: '04:00' } as const };

describe('nextBackupDue', () => {
  it('daily at the time in the appliance’s zone, counted from the last scheduled run', () => {
    const since = new Date('2026-11-25T10:00:00Z');
    expect(nextBackupDue({ plan: daily, timeZone: 'UTC', lastScheduledAt: null, since })).toEqual(
      new Date('2026-11-26T03:30:00Z'),
    );
    expect(nextBackupDue({ plan: daily, timeZone: 'Europe/Vienna', lastScheduledAt: null, since })).toEqual(
      new Date('2026-11-26T02:30:00Z'),
    );
    // a week of missed slots runs once (the due slot is in the past), then the next day
    expect(
      nextBackupDue({
        plan: daily,
        timeZone: 'UTC',
        lastScheduledAt: new Date('2026-11-01T03:30:00Z'),
        since,
      }),
    ).toEqual(new Date('2026-11-02T03:30:00Z'));
  });
  it('weekly on the weekday; none when the plan is off', () => {
    expect(
      nextBackupDue({
        plan: weekly,
        timeZone: 'UTC',
        lastScheduledAt: null,
        since: new Date('2026-11-25T10:00:00Z'),
      }),
    ).toEqual(new Date('2026-11-29T04:00:00Z'));
    expect(
      nextBackupDue({
        plan: { ...daily, enabled: false },
        timeZone: 'UTC',
        lastScheduledAt: null,
        since: new Date(),
      }),
    ).toBeNull();
  });
});

describe('nextDrillDue', () => {
  const plan = { enabled: true, drill: DEFAULT_DRILL };
  it('monthly by default: 30 days after the first success, then after each drill', () => {
    const first = new Date('2026-11-01T03:31:00Z');
    expect(nextDrillDue({ plan, timeZone: 'UTC', lastDrillAt: null, firstSuccessAt: first })).toEqual(
      new Date('2026-12-01T05:00:00Z'),
    );
    expect(
      nextDrillDue({
        plan,
        timeZone: 'UTC',
        lastDrillAt: new Date('2026-12-01T05:00:03Z'),
        firstSuccessAt: first,
      }),
    ).toEqual(new Date('2026-12-31T05:00:00Z'));
  });
  it('none before the first successful backup, or when drills are off', () => {
    expect(nextDrillDue({ plan, timeZone: 'UTC', lastDrillAt: null, firstSuccessAt: null })).toBeNull();
    expect(
      nextDrillDue({
        plan: { enabled: true, drill: { ...DEFAULT_DRILL, enabled: false } },
        timeZone: 'UTC',
        lastDrillAt: null,
        firstSuccessAt: new Date(),
      }),
    ).toBeNull();
  });
});

describe('staleness', () => {
  const since = new Date('2026-11-01T00:00:00Z');
  it('a daily plan is stale after two days without a successful backup, a weekly one after two weeks', () => {
    const last = new Date('2026-11-10T03:30:00Z');
    expect(isStale({ plan: daily, lastSuccessAt: last, since, now: new Date('2026-11-12T03:29:00Z') })).toBe(
      false,
    );
    expect(isStale({ plan: daily, lastSuccessAt: last, since, now: new Date('2026-11-12T03:31:00Z') })).toBe(
      true,
    );
    expect(isStale({ plan: weekly, lastSuccessAt: last, since, now: new Date('2026-11-20T00:00:00Z') })).toBe(
      false,
    );
    expect(isStale({ plan: weekly, lastSuccessAt: last, since, now: new Date('2026-11-24T04:00:00Z') })).toBe(
      true,
    );
  });
  it('a plan that never succeeded counts from when it became known; a plan that is off is never stale', () => {
    expect(isStale({ plan: daily, lastSuccessAt: null, since, now: new Date('2026-11-02T23:00:00Z') })).toBe(
      false,
    );
    expect(isStale({ plan: daily, lastSuccessAt: null, since, now: new Date('2026-11-03T01:00:00Z') })).toBe(
      true,
    );
    expect(
      isStale({
        plan: { ...daily, enabled: false },
        lastSuccessAt: null,
        since,
        now: new Date('2027-01-01T00:00:00Z'),
      }),
    ).toBe(false);
  });
  it('raised once at onset, cleared when it ends', () => {
    expect(
      staleTransitions([
        { plan: 'a', stale: true, raised: false },
        { plan: 'b', stale: true, raised: true },
        { plan: 'c', stale: false, raised: true },
        { plan: 'd', stale: false, raised: false },
      ]),
    ).toEqual({ onsets: ['a'], clears: ['c'] });
  });
});
