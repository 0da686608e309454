import { describe, expect, it } from 'vitest';
import { nextScrubDue, nextSyncDue } from './schedule.ts';
import { DEFAULT_PARITY_SETTINGS as S } from './settings.ts';

describe('nextSyncDue', () => {
  it('is the next 03:00 in the appliance’s time zone after the last scheduled sync', () => {
    const since = new Date('2026-11-25T10:00:00Z');
    expect(nextSyncDue({ settings: S, timeZone: 'UTC', lastScheduledAt: null, since })).toEqual(
      new Date('2026-11-26T03:00:00Z'),
    );
    // Vienna is UTC+1 in November
    expect(nextSyncDue({ settings: S, timeZone: 'Europe/Vienna', lastScheduledAt: null, since })).toEqual(
      new Date('2026-11-26T02:00:00Z'),
    );
    expect(
      nextSyncDue({ settings: S, timeZone: 'UTC', lastScheduledAt: new Date('2026-11-26T03:00:02Z'), since }),
    ).toEqual(new Date('2026-11-27T03:00:00Z'));
  });
  it('a slot missed while the service was down is in the past (the scheduler runs it once)', () => {
    const due = nextSyncDue({
      settings: S,
      timeZone: 'UTC',
      lastScheduledAt: new Date('2026-11-20T03:00:00Z'),
      since: new Date('2026-11-01T00:00:00Z'),
    });
    expect(due).toEqual(new Date('2026-11-21T03:00:00Z'));
  });
  it('none when the daily sync is off', () => {
    expect(
      nextSyncDue({
        settings: { ...S, syncEnabled: false },
        timeZone: 'UTC',
        lastScheduledAt: null,
        since: new Date(),
      }),
    ).toBeNull();
  });
});

describe('nextScrubDue', () => {
  it('every 7 days at 04:00 after the last scrub, scheduled or on demand', () => {
    const since = new Date('2026-11-01T10:00:00Z');
    expect(nextScrubDue({ settings: S, timeZone: 'UTC', lastScrubAt: null, since })).toEqual(
      new Date('2026-11-08T04:00:00Z'),
    );
    expect(
      nextScrubDue({ settings: S, timeZone: 'UTC', lastScrubAt: new Date('2026-11-08T04:00:05Z'), since }),
    ).toEqual(new Date('2026-11-15T04:00:00Z'));
    expect(
      nextScrubDue({
        settings: { ...S, scrubEveryDays: 1 },
        timeZone: 'UTC',
        lastScrubAt: new Date('2026-11-08T04:00:05Z'),
        since,
      }),
    ).toEqual(new Date('2026-11-09T04:00:00Z'));
  });
  it('none when scrubs are off', () => {
    expect(
      nextScrubDue({
        settings: { ...S, scrubEnabled: false },
        timeZone: 'UTC',
        lastScrubAt: null,
        since: new Date(),
      }),
    ).toBeNull();
  });
});

describe('UTC slots without croner', () => {
  it('answers what croner answers for UTC, at and around every slot boundary', async () => {
    const { Cron } = await import('croner');
    const { utcSlot } = await import('./schedule.ts');
    const base = Date.parse('2026-03-29T00:00:00Z');
    for (const [h, m] of [
      [0, 0],
      [3, 0],
      [3, 30],
      [12, 5],
      [23, 59],
    ] as const) {
      const cron = new Cron(`${m} ${h} * * *`, { timezone: 'UTC', paused: true });
      const instants = [0, 1, 59_999, 60_000, 3 * 3_600_000, h * 3_600_000 + m * 60_000];
      for (let day = 0; day < 3; day++)
        for (const offset of instants)
          for (const delta of [-1, 0, 1, 500]) {
            const after = new Date(base + day * 86_400_000 + offset + delta);
            expect(utcSlot(h, m, after).toISOString(), after.toISOString()).toBe(
              cron.nextRun(after)?.toISOString(),
            );
          }
      cron.stop();
    }
  });
});
