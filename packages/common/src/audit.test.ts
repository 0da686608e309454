import { describe, expect, it, vi } from 'vitest';
import {
  type Actor,
  AuditLog,
  type AuditRows,
  auditPruneCutoff,
  type StoredAuditRow,
  scheduleAuditPrune,
} from './audit.ts';

/** The audit rows in memory, with rowid-like ids (largest + 1). */
function memoryRows(): AuditRows<null> & { rows: StoredAuditRow[] } {
  const rows: StoredAuditRow[] = [];
  return {
    rows,
    insert(_db, row) {
      const id = (rows.at(-1)?.id ?? 0) + 1;
      rows.push({ id, ...row });
      return id;
    },
    page: (_db, limit, before) =>
      rows
        .filter((r) => before === null || r.id < before)
        .reverse()
        .slice(0, limit),
    deleteOlder(_db, at, belowId) {
      const keep = rows.filter((r) => !(r.at < at && r.id < belowId));
      const gone = rows.length - keep.length;
      rows.splice(0, rows.length, ...keep);
      return gone;
    },
    newestId: () => rows.at(-1)?.id ?? null,
  };
}

const admin: Actor = { kind: 'user', userId: 'u', username: 'admin', role: 'admin', tokenId: 'tok' };
const local: Actor = { kind: 'local', userId: null, username: 'root', role: 'admin', tokenId: null };

describe('AuditLog', () => {
  it('shapes the row: local, the username or system; outcome ok and details {} by default', () => {
    const rows = memoryRows();
    const log = new AuditLog(() => new Date('2026-01-01T00:00:00Z'), rows);
    log.record(null, admin, { operation: 'user.create', target: 'bob', details: { role: 'viewer' } });
    log.record(null, local, { operation: 'x', target: 't', outcome: 'failed' });
    expect(log.record(null, null, { operation: 'y', target: 't' })).toBe(3);
    expect(log.lastId).toBe(3);
    expect(
      rows.rows.map(({ actor, tokenId, outcome, details }) => [actor, tokenId, outcome, details]),
    ).toEqual([
      ['admin', 'tok', 'ok', '{"role":"viewer"}'],
      ['local', null, 'failed', '{}'],
      ['system', null, 'ok', '{}'],
    ]);
    expect(rows.rows[0]!.at).toBe('2026-01-01T00:00:00.000Z');
  });

  it('pages newest first with details parsed; nextBefore only when the page is full', () => {
    const log = new AuditLog(() => new Date(0), memoryRows());
    for (let i = 0; i < 3; i++)
      log.record(null, admin, { operation: 'x', target: String(i), details: { i } });
    expect(log.page(null, 2, null)).toMatchObject({
      entries: [{ id: 3, details: { i: 2 } }, { id: 2 }],
      nextBefore: 2,
    });
    expect(log.page(null, 2, 2)).toMatchObject({ entries: [{ id: 1 }], nextBefore: null });
  });

  it('prunes rows older than the cutoff but always keeps the newest row (ids keep growing)', () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const rows = memoryRows();
    const log = new AuditLog(() => now, rows);
    for (let i = 0; i < 3; i++) log.record(null, admin, { operation: 'x', target: 't' });
    now = new Date('2028-01-01T00:00:00Z');
    expect(log.prune(null, auditPruneCutoff(now))).toBe(2);
    expect(rows.rows.map((r) => r.id)).toEqual([3]);
    expect(log.record(null, admin, { operation: 'x', target: 't' })).toBe(4);
    expect(new AuditLog(() => now, memoryRows()).prune(null, now)).toBe(0);
  });

  it('keeps a year: the cutoff is 365 days before now', () => {
    expect(auditPruneCutoff(new Date('2027-01-01T00:00:00Z')).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('scheduleAuditPrune', () => {
  it('prunes at once and every day with the cutoff of that day; a failure waits for the next; stop ends it', async () => {
    vi.useFakeTimers({ now: new Date('2027-01-01T00:00:00Z') });
    try {
      const cutoffs: string[] = [];
      let fail = true;
      const stop = scheduleAuditPrune(
        async (olderThan) => {
          cutoffs.push(olderThan.toISOString().slice(0, 10));
          if (fail) throw new Error('database is locked');
        },
        { now: () => new Date() },
      );
      await vi.advanceTimersByTimeAsync(0);
      fail = false;
      await vi.advanceTimersByTimeAsync(24 * 3600 * 1000);
      stop();
      await vi.advanceTimersByTimeAsync(3 * 24 * 3600 * 1000);
      expect(cutoffs).toEqual(['2026-01-01', '2026-01-02']);
    } finally {
      vi.useRealTimers();
    }
  });
});
