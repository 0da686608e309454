/**
 * The parity rows: settings (with the anchors' defaults until saved) and what the last jobs found;
 * `createParityStore` is @appliance/parity's `ParityStore` over them.
 */
import {
  DEFAULT_PARITY_SETTINGS,
  type ParitySettings,
  type ParitySettingsPorts,
  type ParityState,
  type ParityStore,
  type RecordedDiff,
  type RecordedStatus,
} from '@appliance/parity';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import type { Actor } from '../../services/audit.ts';
import { paritySettings, parityState } from '../../db/schema.ts';

export function readParitySettings(db: Db): ParitySettings {
  const r = db.select().from(paritySettings).where(eq(paritySettings.id, 1)).get();
  if (!r) return { ...DEFAULT_PARITY_SETTINGS };
  return {
    syncEnabled: r.syncEnabled === 1,
    syncTime: r.syncTime,
    scrubEnabled: r.scrubEnabled === 1,
    scrubTime: r.scrubTime,
    scrubEveryDays: r.scrubEveryDays,
    scrubPercent: r.scrubPercent,
    scrubOlderThanDays: r.scrubOlderThanDays,
    deleteThreshold: r.deleteThreshold,
    updateThreshold: r.updateThreshold,
    autoSyncAfterBlockedDays: r.autoSyncAfterBlockedDays,
    touchBeforeSync: r.touchBeforeSync === 1,
  };
}

export function writeParitySettings(db: Db, s: ParitySettings, at: string): void {
  const row = {
    id: 1,
    syncEnabled: s.syncEnabled ? 1 : 0,
    syncTime: s.syncTime,
    scrubEnabled: s.scrubEnabled ? 1 : 0,
    scrubTime: s.scrubTime,
    scrubEveryDays: s.scrubEveryDays,
    scrubPercent: s.scrubPercent,
    scrubOlderThanDays: s.scrubOlderThanDays,
    deleteThreshold: s.deleteThreshold,
    updateThreshold: s.updateThreshold,
    autoSyncAfterBlockedDays: s.autoSyncAfterBlockedDays,
    touchBeforeSync: s.touchBeforeSync ? 1 : 0,
    updatedAt: at,
  };
  db.insert(paritySettings).values(row).onConflictDoUpdate({ target: paritySettings.id, set: row }).run();
}

export function readParityState(db: Db): ParityState {
  const r = db.select().from(parityState).where(eq(parityState.id, 1)).get();
  return {
    lastDiff: r?.lastDiff ? (JSON.parse(r.lastDiff) as RecordedDiff) : null,
    lastStatus: r?.lastStatus ? (JSON.parse(r.lastStatus) as RecordedStatus) : null,
    blockedSince: r?.blockedSince ?? null,
  };
}

export function updateParityState(db: Db, patch: Partial<ParityState>): void {
  const cur = readParityState(db);
  const next = { ...cur, ...patch };
  const row = {
    id: 1,
    lastDiff: next.lastDiff ? JSON.stringify(next.lastDiff) : null,
    lastStatus: next.lastStatus ? JSON.stringify(next.lastStatus) : null,
    blockedSince: next.blockedSince,
  };
  db.insert(parityState).values(row).onConflictDoUpdate({ target: parityState.id, set: row }).run();
}

/** The package's store port: reads from the database, writes through the write queue. */
export function createParityStore(ctx: Pick<AppContext, 'db' | 'writes'>): ParityStore {
  return {
    settings: () => readParitySettings(ctx.db),
    state: () => readParityState(ctx.db),
    update: (patch) => ctx.writes.run((db) => updateParityState(db, patch)),
  };
}

/** The settings' transaction port: the row and its audit row in ONE write job. */
export const paritySettingsTransaction =
  (ctx: Pick<AppContext, 'writes' | 'audit'>): ParitySettingsPorts<Actor>['transaction'] =>
  (fn) =>
    ctx.writes.run((db) =>
      fn({
        settings: () => readParitySettings(db),
        write: (next, at) => writeParitySettings(db, next, at),
        audit: (actor, entry) => ctx.audit.record(db, actor, entry),
      }),
    );
