import { describe, expect, it } from 'vitest';
import { nextDailySlot, nextWeeklySlot } from './schedule.ts';

describe('calendar slots', () => {
  it('daily: the next HH:MM in the time zone, strictly after the instant', () => {
    expect(nextDailySlot('03:00', 'UTC', new Date('2026-11-25T10:00:00Z'))).toEqual(
      new Date('2026-11-26T03:00:00Z'),
    );
    expect(nextDailySlot('03:00', 'UTC', new Date('2026-11-26T03:00:00Z'))).toEqual(
      new Date('2026-11-27T03:00:00Z'),
    );
    // Vienna is UTC+1 in November, UTC+2 in July
    expect(nextDailySlot('03:00', 'Europe/Vienna', new Date('2026-11-25T10:00:00Z'))).toEqual(
      new Date('2026-11-26T02:00:00Z'),
    );
    expect(nextDailySlot('03:00', 'Europe/Vienna', new Date('2026-07-01T10:00:00Z'))).toEqual(
      new Date('2026-07-02T01:00:00Z'),
    );
  });
  it('weekly: the next weekday at HH:MM', () => {
    // 2026-11-25 is a Wednesday
    expect(nextWeeklySlot('sunday', '04:30', 'UTC', new Date('2026-11-25T10:00:00Z'))).toEqual(
      new Date('2026-11-29T04:30:00Z'),
    );
    expect(nextWeeklySlot('wednesday', '11:00', 'UTC', new Date('2026-11-25T10:00:00Z'))).toEqual(
      new Date('2026-11-25T11:00:00Z'),
    );
    expect(nextWeeklySlot('wednesday', '09:00', 'UTC', new Date('2026-11-25T10:00:00Z'))).toEqual(
      new Date('2026-12-02T09:00:00Z'),
    );
  });
  it('refuses a malformed time instead of guessing', () => {
    expect(() => nextDailySlot('25:00', 'UTC', new Date())).toThrow(/HH:MM/);
    expect(() => nextDailySlot('3:00', 'UTC', new Date())).toThrow(/HH:MM/);
  });
});

describe('UTC slots without croner', () => {
  it('answers what croner answers for UTC, daily and weekly, at and around every slot boundary', async () => {
    const { Cron } = await import('croner');
    const { utcSlot } = await import('./schedule.ts');
    const base = Date.parse('2026-03-29T00:00:00Z');
    for (const [h, m] of [
      [0, 0],
      [3, 0],
      [3, 30],
      [12, 5],
      [23, 59],
    ] as const)
      for (const d of ['*', '0', '3', '6']) {
        const pattern = `${m} ${h} * * ${d}`;
        const cron = new Cron(pattern, { timezone: 'UTC', paused: true });
        const instants = [0, 1, 59_999, 60_000, 3 * 3_600_000, h * 3_600_000 + m * 60_000];
        for (let day = 0; day < 8; day++)
          for (const offset of instants)
            for (const delta of [-1, 0, 1, 500]) {
              const after = new Date(base + day * 86_400_000 + offset + delta);
              expect(utcSlot(pattern, after).toISOString(), `${pattern} after ${after.toISOString()}`).toBe(
                cron.nextRun(after)?.toISOString(),
              );
            }
        cron.stop();
      }
  });
});
