import { describe, expect, it } from 'vitest';
import { decideRetention, isoWeek, pruneDue, retentionDue, type SnapshotFact } from './retention.ts';

const snap = (id: string, time: string, part = 'share:media'): SnapshotFact => ({
  id,
  time,
  tags: ['appliance', 'plan:p', part],
});

describe('decideRetention', () => {
  it('keeps the newest of each of the last N days, weeks and months, per part', () => {
    const list = [
      snap('a1', '2026-11-25T03:30:00Z'),
      snap('a2', '2026-11-25T12:00:00Z'), // newer the same day: a1 goes
      snap('b', '2026-11-24T03:30:00Z'),
      snap('c', '2026-11-23T03:30:00Z'),
      snap('d', '2026-11-16T03:30:00Z'), // older week
      snap('e', '2026-10-10T03:30:00Z'), // older month
      snap('x', '2026-11-20T03:30:00Z', 'config'),
    ];
    const r = decideRetention(list, { daily: 2, weekly: 2, monthly: 2 }, 'UTC');
    // daily: a2, b; weekly: a2 (week 48), d (week 47); monthly: a2 (Nov), e (Oct)
    expect(r.keep.sort()).toEqual(['a2', 'b', 'd', 'e', 'x']);
    expect(r.remove.sort()).toEqual(['a1', 'c']);
    expect(r.parts).toEqual({ 'share:media': { kept: 4, removed: 2 }, config: { kept: 1, removed: 0 } });
  });
  it('days are the appliance’s days: 23:30 UTC is the next day in Vienna', () => {
    const list = [snap('late', '2026-11-24T23:30:00Z'), snap('early', '2026-11-25T01:00:00Z')];
    expect(decideRetention(list, { daily: 5, weekly: 0, monthly: 0 }, 'UTC').remove).toEqual([]);
    expect(decideRetention(list, { daily: 5, weekly: 0, monthly: 0 }, 'Europe/Vienna').remove).toEqual([
      'late',
    ]);
  });
  it('never removes the newest snapshot of a part, nor a snapshot that is not ours', () => {
    const list = [
      snap('n', '2026-11-25T03:30:00Z'),
      { id: 'foreign', time: '2020-01-01T00:00:00Z', tags: null },
    ];
    const r = decideRetention(list, { daily: 0, weekly: 0, monthly: 1 }, 'UTC');
    expect(r.keep.sort()).toEqual(['foreign', 'n']);
  });
  it('ISO weeks cross the year boundary as ISO 8601 says', () => {
    expect(isoWeek(2026, 12, 31)).toEqual({ year: 2026, week: 53 });
    expect(isoWeek(2027, 1, 3)).toEqual({ year: 2026, week: 53 });
    expect(isoWeek(2027, 1, 4)).toEqual({ year: 2027, week: 1 });
    expect(isoWeek(2024, 12, 30)).toEqual({ year: 2025, week: 1 });
  });
});

describe('retention and prune cadence', () => {
  it('retention runs on the first run of each local day', () => {
    const last = new Date('2026-11-25T03:30:00Z');
    expect(retentionDue(null, last, 'UTC')).toBe(true);
    expect(retentionDue(last, new Date('2026-11-25T22:00:00Z'), 'UTC')).toBe(false);
    expect(retentionDue(last, new Date('2026-11-26T00:10:00Z'), 'UTC')).toBe(true);
    // 23:30 UTC is already the next day in Vienna
    expect(retentionDue(last, new Date('2026-11-25T23:30:00Z'), 'Europe/Vienna')).toBe(true);
  });
  it('prune only after something was forgotten, at most once a week', () => {
    const now = new Date('2026-11-25T03:30:00Z');
    expect(pruneDue({ lastPruneAt: null, forgottenSincePrune: 0, now })).toBe(false);
    expect(pruneDue({ lastPruneAt: null, forgottenSincePrune: 1, now })).toBe(true);
    expect(pruneDue({ lastPruneAt: new Date('2026-11-20T03:30:00Z'), forgottenSincePrune: 5, now })).toBe(
      false,
    );
    expect(pruneDue({ lastPruneAt: new Date('2026-11-18T03:30:00Z'), forgottenSincePrune: 5, now })).toBe(
      true,
    );
  });
});
