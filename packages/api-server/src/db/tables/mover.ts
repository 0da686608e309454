/** The mover tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// ── mover (issue 37) ───────────────────────────────────────────────────────────────────────────
/** The mover's schedule and verification (singleton; absent = the defaults). */
export const moverSettings = sqliteTable(
  'mover_settings',
  {
    id: integer('id').primaryKey(),
    enabled: integer('enabled').notNull(),
    /** Daily at this local time (HH:MM), before the parity sync. */
    time: text('time').notNull(),
    /** `size-mtime` or `sha256`: how a copy is verified before the cache's is removed. */
    verify: text('verify', { enum: ['size-mtime', 'sha256'] }).notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('mover_settings_singleton', sql`${t.id} = 1`)],
);
