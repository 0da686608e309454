/** The shares tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { userGroups, users } from './accounts.ts';
import { timestamps } from './columns.ts';

// ── shares (08 §6, 06) ─────────────────────────────────────────────────────────────────────────
export const shares = sqliteTable(
  'shares',
  {
    name: text('name').primaryKey(),
    cacheMode: text('cache_mode', { enum: ['cache-then-move', 'cache-only', 'array-only'] }).notNull(),
    createPolicy: text('create_policy', { enum: ['mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'] }).notNull(),
    smbEnabled: integer('smb_enabled').notNull().default(1),
    smbBrowseable: integer('smb_browseable').notNull().default(1),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('shares_name_lower').on(sql`lower(${t.name})`),
    check('shares_cache_mode_check', sql`${t.cacheMode} in ('cache-then-move', 'cache-only', 'array-only')`),
    check('shares_create_policy_check', sql`${t.createPolicy} in ('mfs', 'lfs', 'ff', 'epmfs', 'mspmfs')`),
  ],
);

const accessCheck = (name: string, col: unknown) =>
  check(name, sql`${col} in ('none', 'read-only', 'read-write')`);

export const shareUserPermissions = sqliteTable(
  'share_user_permissions',
  {
    shareName: text('share_name')
      .notNull()
      .references(() => shares.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    access: text('access', { enum: ['none', 'read-only', 'read-write'] }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shareName, t.userId] }),
    index('share_user_permissions_user').on(t.userId),
    accessCheck('share_user_permissions_access_check', t.access),
  ],
);

export const shareGroupPermissions = sqliteTable(
  'share_group_permissions',
  {
    shareName: text('share_name')
      .notNull()
      .references(() => shares.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    groupId: text('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    access: text('access', { enum: ['none', 'read-only', 'read-write'] }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shareName, t.groupId] }),
    index('share_group_permissions_group').on(t.groupId),
    accessCheck('share_group_permissions_access_check', t.access),
  ],
);
