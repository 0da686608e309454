/** The updates and reboot tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// ── updates and reboot (issue 38) ──────────────────────────────────────────────────────────────
/** The last apt check and the scheduled reboot (singleton, runtime of this machine). */
export const systemUpdates = sqliteTable(
  'system_updates',
  {
    id: integer('id').primaryKey(),
    /** RFC 3339 UTC of the last check that ended (null: never checked). */
    checkedAt: text('checked_at'),
    /** JSON array of @appliance/updates' UpgradablePackage: what the last successful check found. */
    upgradable: text('upgradable').notNull().default('[]'),
    /** Why the last check failed (null: it succeeded). */
    checkError: text('check_error'),
    /** When the scheduled reboot is due (null: none scheduled). */
    rebootAt: text('reboot_at'),
    /** Who scheduled it. */
    rebootBy: text('reboot_by'),
  },
  (t) => [check('system_updates_singleton', sql`${t.id} = 1`)],
);
