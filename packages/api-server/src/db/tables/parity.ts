/** The parity tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// ── parity (issue 27) ──────────────────────────────────────────────────────────────────────────
export const paritySettings = sqliteTable(
  'parity_settings',
  {
    id: integer('id').primaryKey(),
    syncEnabled: integer('sync_enabled').notNull(),
    syncTime: text('sync_time').notNull(),
    scrubEnabled: integer('scrub_enabled').notNull(),
    scrubTime: text('scrub_time').notNull(),
    scrubEveryDays: integer('scrub_every_days').notNull(),
    scrubPercent: integer('scrub_percent').notNull(),
    scrubOlderThanDays: integer('scrub_older_than_days').notNull(),
    deleteThreshold: integer('delete_threshold').notNull(),
    updateThreshold: integer('update_threshold'),
    autoSyncAfterBlockedDays: integer('auto_sync_after_blocked_days'),
    touchBeforeSync: integer('touch_before_sync').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('parity_settings_singleton', sql`${t.id} = 1`)],
);

/** What the last parity jobs found (a GET reads this, never snapraid). */
export const parityState = sqliteTable(
  'parity_state',
  {
    id: integer('id').primaryKey(),
    /** JSON: the last `snapraid diff` (counts, paths, when, which job). */
    lastDiff: text('last_diff'),
    /** JSON: the last `snapraid status` facts and when. */
    lastStatus: text('last_status'),
    /** When the current streak of guard-blocked syncs began (null: the last sync was not blocked). */
    blockedSince: text('blocked_since'),
  },
  (t) => [check('parity_state_singleton', sql`${t.id} = 1`)],
);
