/** The disks tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// ── disks (03 §3, 07 §2, 08 §9–§10) ───────────────────────────────────────────────────────────
export const arrayDisks = sqliteTable(
  'array_disks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    role: text('role', { enum: ['data', 'parity', 'cache'] }).notNull(),
    roleIndex: integer('role_index').notNull(),
    device: text('device').notNull(),
    filesystem: text('filesystem', { enum: ['xfs', 'ext4', 'btrfs'] }).notNull(),
    fsUuid: text('fs_uuid').notNull().unique(),
    wwn: text('wwn'),
    serial: text('serial'),
    byIdName: text('by_id_name'),
    weakIdentity: integer('weak_identity').notNull(),
    sizeBytes: integer('size_bytes'),
    mountpoint: text('mountpoint').notNull().unique(),
    removalState: text('removal_state', { enum: ['evacuating', 'evacuated', 'unpooled', 'unlisted'] }),
  },
  (t) => [
    uniqueIndex('array_disks_role_index').on(t.role, t.roleIndex),
    uniqueIndex('array_disks_one_cache').on(t.role).where(sql`role = 'cache'`),
    check('array_disks_role_check', sql`${t.role} in ('data', 'parity', 'cache')`),
    check('array_disks_role_index_check', sql`${t.roleIndex} >= 1`),
    check('array_disks_fs_check', sql`${t.filesystem} in ('xfs', 'ext4', 'btrfs')`),
    check(
      'array_disks_removal_check',
      sql`${t.removalState} is null or ${t.removalState} in ('evacuating', 'evacuated', 'unpooled', 'unlisted')`,
    ),
  ],
);

export const arraySettings = sqliteTable(
  'array_settings',
  {
    id: integer('id').primaryKey(),
    createPolicy: text('create_policy').notNull(),
    migrationPending: integer('migration_pending').notNull().default(0),
    migrationPendingSince: text('migration_pending_since'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('array_settings_singleton', sql`${t.id} = 1`)],
);

export const externalDisks = sqliteTable(
  'external_disks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    label: text('label').notNull(),
    device: text('device').notNull(),
    filesystem: text('filesystem'),
    fsUuid: text('fs_uuid').unique(),
    wwn: text('wwn'),
    serial: text('serial'),
    byIdName: text('by_id_name'),
    weakIdentity: integer('weak_identity').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    backupDestination: integer('backup_destination').notNull().default(0),
    createdAt: text('created_at').notNull(),
    formattedAt: text('formatted_at'),
  },
  (t) => [uniqueIndex('external_disks_label_nocase').on(sql`${t.label} collate nocase`)],
);
