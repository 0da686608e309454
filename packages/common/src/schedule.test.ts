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
