/** The accounts tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './columns.ts';

// ── accounts (08 §2–§5) ────────────────────────────────────────────────────────────────────────
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    role: text('role', { enum: ['admin', 'viewer', 'share-only'] }).notNull(),
    passwordHash: text('password_hash'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_username_lower').on(sql`lower(${t.username})`),
    uniqueIndex('users_one_admin').on(t.role).where(sql`role = 'admin'`),
    check('users_role_check', sql`${t.role} in ('admin', 'viewer', 'share-only')`),
  ],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    role: text('role', { enum: ['admin', 'viewer'] }).notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at'),
    lastUsedAt: text('last_used_at'),
  },
  (t) => [
    index('api_tokens_user').on(t.userId),
    check('api_tokens_role_check', sql`${t.role} in ('admin', 'viewer')`),
  ],
);

/**
 * Browser sessions (docs/decisions/web-ui.md): the cookie holds a random secret, the row only its
 * SHA-256. A session ends at `expires_at` (absolute) or after the idle limit since `last_used_at`,
 * and when it is deleted (sign-out, owner deleted).
 */
export const webSessions = sqliteTable(
  'web_sessions',
  {
    id: text('id').primaryKey(),
    secretHash: text('secret_hash').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('web_sessions_user').on(t.userId)],
);

export const userGroups = sqliteTable(
  'user_groups',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('user_groups_name_lower').on(sql`lower(${t.name})`)],
);

export const userGroupMembers = sqliteTable(
  'user_group_members',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('user_group_members_user').on(t.userId)],
);
