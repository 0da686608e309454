/**
 * The drizzle implementations of the notify-routing ports (routing, raise, delivery queue) and the
 * channel row helpers. Everything here runs on the handle it is given: `ctx.db` for reads, the write
 * job's handle inside `ctx.writes.run`.
 */
import type {
  AlertDraft,
  ChannelType,
  EventType,
  RaiseStore,
  RouteRow,
  RoutingStore,
  Severity,
  SeverityOverrideRow,
  StoredChannel,
} from '@appliance/notify-routing';
import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import {
  notifyAlerts,
  notifyChannels,
  notifyDeliveries,
  notifyEventSeverity,
  notifyRoutes,
} from '../../db/schema.ts';

/**
 * The routing statements, prepared once per connection as plain SQLite statements: PUT routing is
 * the hot path of 04 §7, where drizzle's per-call query mapping cost more than the statements
 * themselves (the table and column names are the schema's, see db/schema.ts). Variable-length id
 * lists travel as one JSON array through `json_each`.
 */
const routingStatements = preparedPerConnection((db) => {
  const prepare = (text: string) => db.$client.prepare(text);
  return {
    overridesOf: prepare(
      'select event_type as eventType, severity from notify_event_severity where event_type = ?',
    ),
    allOverrides: prepare('select event_type as eventType, severity from notify_event_severity'),
    routesOf: prepare(
      'select event_type as eventType, channel_id as channelId from notify_routes where event_type = ?',
    ),
    allRoutes: prepare('select event_type as eventType, channel_id as channelId from notify_routes'),
    existing: prepare('select id from notify_channels where id in (select value from json_each(?))').pluck(),
    // Up to 4 ids (the usual request) as plain parameters: json_each costs more than the lookups.
    existingFew: [1, 2, 3, 4].map((n) =>
      prepare(`select id from notify_channels where id in (${Array(n).fill('?').join(', ')})`).pluck(),
    ),
    deleteOverride: prepare('delete from notify_event_severity where event_type = ?'),
    insertOverride: prepare('insert into notify_event_severity (event_type, severity) values (?, ?)'),
    deleteRoutes: prepare('delete from notify_routes where event_type = ?'),
    insertRoutes: prepare(
      'insert into notify_routes (event_type, channel_id) select ?, value from json_each(?)',
    ),
  };
});

export function routingStore(db: Db): RoutingStore {
  const q = routingStatements(db);
  return {
    severityOverrides: (eventType) =>
      (eventType ? q.overridesOf.all(eventType) : q.allOverrides.all()) as SeverityOverrideRow[],
    routes: (eventType) => (eventType ? q.routesOf.all(eventType) : q.allRoutes.all()) as RouteRow[],
    existingChannelIds: (ids) => {
      if (ids.length === 0) return [];
      const few = q.existingFew[ids.length - 1];
      return (few ? few.all(...ids) : q.existing.all(JSON.stringify(ids))) as string[];
    },
    deleteSeverityOverride: (eventType) => {
      q.deleteOverride.run(eventType);
    },
    insertSeverityOverride: (eventType, severity) => {
      q.insertOverride.run(eventType, severity);
    },
    deleteRoutes: (eventType) => {
      q.deleteRoutes.run(eventType);
    },
    insertRoutes: (eventType, channelIds) => {
      q.insertRoutes.run(eventType, JSON.stringify(channelIds));
    },
  };
}

export function raiseStore(db: Db): RaiseStore {
  return {
    severityOverride: (eventType: EventType): Severity | null =>
      db
        .select({ severity: notifyEventSeverity.severity })
        .from(notifyEventSeverity)
        .where(eq(notifyEventSeverity.eventType, eventType))
        .get()?.severity ?? null,
    routedChannels: (eventType) =>
      db
        .select({ id: notifyChannels.id, enabled: notifyChannels.enabled })
        .from(notifyRoutes)
        .innerJoin(notifyChannels, eq(notifyChannels.id, notifyRoutes.channelId))
        .where(eq(notifyRoutes.eventType, eventType))
        .all()
        .map((r) => ({ id: r.id, enabled: r.enabled === 1 })),
    insertAlert: (alert: AlertDraft) =>
      db.insert(notifyAlerts).values(alert).returning({ id: notifyAlerts.id }).get().id,
    insertDeliveries: (alertId, channelIds, dueAt) => {
      db.insert(notifyDeliveries)
        .values(
          channelIds.map((channelId) => ({
            alertId,
            channelId,
            status: 'pending' as const,
            attempts: 0,
            nextAttemptAt: dueAt,
            createdAt: dueAt,
            updatedAt: dueAt,
          })),
        )
        .run();
    },
  };
}

// ── channels ───────────────────────────────────────────────────────────────────────────────────
export type ChannelRow = typeof notifyChannels.$inferSelect;

export function toStoredChannel(row: ChannelRow): StoredChannel {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ChannelType,
    enabled: row.enabled === 1,
    config: JSON.parse(row.config) as Record<string, unknown>,
    hasSecret: row.secret !== null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function findChannel(db: Db, id: string): ChannelRow | undefined {
  return db.select().from(notifyChannels).where(eq(notifyChannels.id, id)).get();
}

export function listChannels(db: Db): ChannelRow[] {
  return db
    .select()
    .from(notifyChannels)
    .orderBy(asc(sql`lower(${notifyChannels.name})`), asc(notifyChannels.id))
    .all();
}

/** Whether another channel already has this name, ignoring case. */
export function nameTaken(db: Db, name: string, exceptId: string | null): boolean {
  const row = db
    .select({ id: notifyChannels.id })
    .from(notifyChannels)
    .where(sql`lower(${notifyChannels.name}) = lower(${name})`)
    .get();
  return row !== undefined && row.id !== exceptId;
}

// ── alerts ─────────────────────────────────────────────────────────────────────────────────────
export function listAlerts(db: Db, limit: number, before: number | null) {
  const q = db
    .select({
      id: notifyAlerts.id,
      eventType: notifyAlerts.eventType,
      severity: notifyAlerts.severity,
      title: notifyAlerts.title,
      message: notifyAlerts.message,
      occurredAt: notifyAlerts.occurredAt,
    })
    .from(notifyAlerts);
  const rows = (before === null ? q : q.where(lt(notifyAlerts.id, before)))
    .orderBy(desc(notifyAlerts.id))
    .limit(limit)
    .all();
  return { alerts: rows, nextBefore: rows.length === limit ? rows[rows.length - 1]!.id : null };
}

// ── delivery queue ─────────────────────────────────────────────────────────────────────────────
export function dueDeliveryRows(db: Db, nowIso: string, limit: number) {
  return db
    .select({
      id: notifyDeliveries.id,
      attempts: notifyDeliveries.attempts,
      channel: notifyChannels,
      alert: notifyAlerts,
    })
    .from(notifyDeliveries)
    .innerJoin(notifyChannels, eq(notifyChannels.id, notifyDeliveries.channelId))
    .innerJoin(notifyAlerts, eq(notifyAlerts.id, notifyDeliveries.alertId))
    .where(and(eq(notifyDeliveries.status, 'pending'), sql`${notifyDeliveries.nextAttemptAt} <= ${nowIso}`))
    .orderBy(asc(notifyDeliveries.nextAttemptAt), asc(notifyDeliveries.id))
    .limit(limit)
    .all();
}
