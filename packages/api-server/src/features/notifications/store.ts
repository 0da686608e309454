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
  RoutingStore,
  Severity,
  StoredChannel,
} from '@appliance/notify-routing';
import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import {
  notifyAlerts,
  notifyChannels,
  notifyDeliveries,
  notifyEventSeverity,
  notifyRoutes,
} from '../../db/schema.ts';

/**
 * The routing statements, prepared once per database handle (the write queue hands jobs the same
 * handle as `ctx.db`): PUT routing is the hot path of 04 §7, and preparing a statement costs more
 * than running it. Variable-length id lists travel as one JSON array through `json_each`.
 */
function routingStatements(db: Db) {
  const ids = sql`(select value from json_each(${sql.placeholder('ids')}))`;
  return {
    overridesOf: db
      .select()
      .from(notifyEventSeverity)
      .where(eq(notifyEventSeverity.eventType, sql.placeholder('eventType')))
      .prepare(),
    allOverrides: db.select().from(notifyEventSeverity).prepare(),
    routesOf: db
      .select()
      .from(notifyRoutes)
      .where(eq(notifyRoutes.eventType, sql.placeholder('eventType')))
      .prepare(),
    allRoutes: db.select().from(notifyRoutes).prepare(),
    existing: db
      .select({ id: notifyChannels.id })
      .from(notifyChannels)
      .where(inArray(notifyChannels.id, ids))
      .prepare(),
    deleteOverride: db
      .delete(notifyEventSeverity)
      .where(eq(notifyEventSeverity.eventType, sql.placeholder('eventType')))
      .prepare(),
    insertOverride: db
      .insert(notifyEventSeverity)
      .values({ eventType: sql.placeholder('eventType'), severity: sql.placeholder('severity') })
      .prepare(),
    deleteRoutes: db
      .delete(notifyRoutes)
      .where(eq(notifyRoutes.eventType, sql.placeholder('eventType')))
      .prepare(),
    insertRoutes: db
      .insert(notifyRoutes)
      .select(sql`select ${sql.placeholder('eventType')}, value from json_each(${sql.placeholder('ids')})`)
      .prepare(),
  };
}

const prepared = new WeakMap<Db, ReturnType<typeof routingStatements>>();

export function routingStore(db: Db): RoutingStore {
  let q = prepared.get(db);
  if (!q) {
    q = routingStatements(db);
    prepared.set(db, q);
  }
  const st = q;
  return {
    severityOverrides: (eventType) => (eventType ? st.overridesOf.all({ eventType }) : st.allOverrides.all()),
    routes: (eventType) => (eventType ? st.routesOf.all({ eventType }) : st.allRoutes.all()),
    existingChannelIds: (ids) =>
      ids.length === 0 ? [] : st.existing.all({ ids: JSON.stringify(ids) }).map((r) => r.id),
    deleteSeverityOverride: (eventType) => {
      st.deleteOverride.run({ eventType });
    },
    insertSeverityOverride: (eventType, severity) => {
      st.insertOverride.run({ eventType, severity });
    },
    deleteRoutes: (eventType) => {
      st.deleteRoutes.run({ eventType });
    },
    insertRoutes: (eventType, channelIds) => {
      st.insertRoutes.run({ eventType, ids: JSON.stringify(channelIds) });
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
