/** The notifications tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { sealed, timestamps } from './columns.ts';

// ── notifications (04, 08 §7) ──────────────────────────────────────────────────────────────────
export const notifyChannels = sqliteTable(
  'notify_channels',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    type: text('type', { enum: ['webhook', 'ntfy', 'gotify', 'discord', 'email'] }).notNull(),
    enabled: integer('enabled').notNull(),
    /** The type fields (08 §7.1) as a JSON object with only the fields that are set. */
    config: text('config').notNull().default('{}'),
    secret: sealed('secret'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('notify_channels_name_lower').on(sql`lower(${t.name})`),
    check('notify_channels_type_check', sql`${t.type} in ('webhook', 'ntfy', 'gotify', 'discord', 'email')`),
  ],
);

const severityCheck = (name: string, col: unknown) =>
  check(name, sql`${col} in ('info', 'warning', 'error', 'critical')`);

export const notifyEventSeverity = sqliteTable(
  'notify_event_severity',
  {
    eventType: text('event_type').primaryKey(),
    severity: text('severity', { enum: ['info', 'warning', 'error', 'critical'] }).notNull(),
  },
  (t) => [severityCheck('notify_event_severity_check', t.severity)],
);

export const notifyRoutes = sqliteTable(
  'notify_routes',
  {
    eventType: text('event_type').notNull(),
    channelId: text('channel_id')
      .notNull()
      .references(() => notifyChannels.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.eventType, t.channelId] }),
    index('notify_routes_channel').on(t.channelId),
  ],
);

export const notifyAlerts = sqliteTable(
  'notify_alerts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventType: text('event_type').notNull(),
    severity: text('severity', { enum: ['info', 'warning', 'error', 'critical'] }).notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    occurredAt: text('occurred_at').notNull(),
  },
  (t) => [severityCheck('notify_alerts_severity_check', t.severity)],
);

export const notifyDeliveries = sqliteTable(
  'notify_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    alertId: integer('alert_id')
      .notNull()
      .references(() => notifyAlerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => notifyChannels.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at'),
    lastError: text('last_error'),
    ...timestamps,
  },
  (t) => [
    index('notify_deliveries_due').on(t.status, t.nextAttemptAt),
    check('notify_deliveries_status_check', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);
