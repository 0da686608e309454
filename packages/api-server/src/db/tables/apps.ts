/** The apps tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { sealed } from './columns.ts';

// ── apps (02) ──────────────────────────────────────────────────────────────────────────────────
export const catalogSources = sqliteTable(
  'catalog_sources',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['builtin', 'directory', 'https'] }).notNull(),
    position: integer('position').notNull().unique(),
    url: text('url'),
    publicKey: text('public_key'),
    serial: integer('serial'),
    lastRefreshedAt: text('last_refreshed_at'),
    lastError: text('last_error'),
    addedAt: text('added_at').notNull(),
  },
  (t) => [check('catalog_sources_kind_check', sql`${t.kind} in ('builtin', 'directory', 'https')`)],
);

export const stacks = sqliteTable(
  'stacks',
  {
    name: text('name').primaryKey(),
    templateSource: text('template_source'),
    templateId: text('template_id'),
    templateRevision: integer('template_revision'),
    compose: text('compose').notNull(),
    env: sealed('env').notNull(),
    installedAt: text('installed_at').notNull(),
    manuallyEdited: integer('manually_edited').notNull().default(0),
    pending: integer('pending').notNull().default(1),
  },
  (t) => [
    index('stacks_template').on(t.templateId),
    check(
      'stacks_template_all_or_none',
      sql`(${t.templateSource} is null and ${t.templateId} is null and ${t.templateRevision} is null) or (${t.templateSource} is not null and ${t.templateId} is not null and ${t.templateRevision} is not null)`,
    ),
  ],
);
