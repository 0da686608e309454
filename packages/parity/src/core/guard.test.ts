import { describe, expect, it } from 'vitest';
import { type DiffSummary, diffOf } from './diff.ts';
import { decideSync, syncReason } from './guard.ts';
import { DEFAULT_PARITY_SETTINGS } from './settings.ts';

const diff = (o: Partial<DiffSummary>): DiffSummary => ({ ...diffOf({ added: 1 }), ...o });
const now = new Date('2026-11-25T03:00:00Z');
const t = DEFAULT_PARITY_SETTINGS;

describe('decideSync (the deletion guard)', () => {
  it('lets a sync through within the thresholds and when nothing changed', () => {
    expect(
      decideSync({
        diff: diff({ removed: 50, added: 900 }),
        thresholds: t,
        force: false,
        blockedSince: null,
        now,
      }),
    ).toEqual({
      proceed: true,
      reason: 'within_thresholds',
    });
    expect(
      decideSync({ diff: diff({ changes: false }), thresholds: t, force: false, blockedSince: null, now })
        .proceed,
    ).toBe(true);
  });
  it('blocks more removed files than the delete threshold (default 50), naming the count', () => {
    expect(
      decideSync({ diff: diff({ removed: 60 }), thresholds: t, force: false, blockedSince: null, now }),
    ).toEqual({
      proceed: false,
      reason: 'threshold',
      crossed: [{ count: 'removed', value: 60, threshold: 50 }],
    });
  });
  it('the update threshold is off by default and blocks when set', () => {
    const d = diff({ updated: 5000 });
    expect(decideSync({ diff: d, thresholds: t, force: false, blockedSince: null, now }).proceed).toBe(true);
    expect(
      decideSync({
        diff: d,
        thresholds: { ...t, updateThreshold: 100 },
        force: false,
        blockedSince: null,
        now,
      }),
    ).toMatchObject({ proceed: false, crossed: [{ count: 'updated', value: 5000, threshold: 100 }] });
  });
  it('force skips the guard', () => {
    expect(
      decideSync({ diff: diff({ removed: 10_000 }), thresholds: t, force: true, blockedSince: null, now }),
    ).toEqual({
      proceed: true,
      reason: 'forced',
    });
  });
  it('syncs anyway after N blocked days when that setting is on, not before', () => {
    const th = { ...t, autoSyncAfterBlockedDays: 3 };
    const d = diff({ removed: 60 });
    const since = new Date('2026-11-22T03:00:00Z');
    expect(decideSync({ diff: d, thresholds: th, force: false, blockedSince: since, now }).reason).toBe(
      'auto_after_blocked_days',
    );
    expect(
      decideSync({
        diff: d,
        thresholds: th,
        force: false,
        blockedSince: new Date('2026-11-23T03:00:00Z'),
        now,
      }).proceed,
    ).toBe(false);
    expect(decideSync({ diff: d, thresholds: t, force: false, blockedSince: since, now }).proceed).toBe(
      false,
    );
  });
});

describe('syncReason (what a finished sync reports)', () => {
  it('is unfinished_sync, not no_changes, when the sync wrote parity although the diff found no change', () => {
    const decision = decideSync({ diff: diffOf({}), thresholds: t, force: false, blockedSince: null, now });
    expect(decision).toEqual({ proceed: true, reason: 'no_changes' });
    expect(syncReason('no_changes', 1_420_000_000)).toBe('unfinished_sync');
    expect(syncReason('no_changes', 0)).toBe('no_changes');
    expect(syncReason('within_thresholds', 5)).toBe('within_thresholds');
    expect(syncReason('forced', 5)).toBe('forced');
  });
});
