/** The installation tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { sealed } from './columns.ts';

// ── installation (00 §4, 08 §8, §11) ───────────────────────────────────────────────────────────
export const machineKeyCheck = sqliteTable(
  'machine_key_check',
  {
    id: integer('id').primaryKey(),
    hmac: text('hmac').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('machine_key_check_singleton', sql`${t.id} = 1`)],
);

export const settings = sqliteTable(
  'settings',
  {
    id: integer('id').primaryKey(),
    hostname: text('hostname').notNull(),
    timezone: text('timezone').notNull(),
    backupPassphrase: sealed('backup_passphrase'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('settings_singleton', sql`${t.id} = 1`)],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    // A plain rowid key: ids still only grow (a new row takes the largest id + 1, and pruning
    // always keeps the newest row), without AUTOINCREMENT's sqlite_sequence update on every insert
    // (≈5 µs of every audited write; audit_log is written by every change, 04 §7 / 06 §8).
    id: integer('id').primaryKey(),
    at: text('at').notNull(),
    actor: text('actor').notNull(),
    tokenId: text('token_id'),
    operation: text('operation').notNull(),
    target: text('target').notNull(),
    outcome: text('outcome', { enum: ['ok', 'partial', 'failed'] }).notNull(),
    details: text('details').notNull().default('{}'),
  },
  (t) => [
    // No index on `at`: only the daily prune filters on it (a scan of the table once a day), while
    // an index costs every audited write a second b-tree insert.
    check('audit_log_outcome_check', sql`${t.outcome} in ('ok', 'partial', 'failed')`),
  ],
);
