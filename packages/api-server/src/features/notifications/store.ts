/**
 * The drizzle implementations of the notify-routing ports (routing, raise, delivery queue) and the
 * channel row helpers. Everything here runs on the handle it is given: `ctx.db` for reads, the write
 * job's handle inside `ctx.writes.run`.
 */
import type {
  AlertDraft,
  AlertRows,
  ChannelRecord,
  ChannelStore,
  ChannelWrite,
  DeliveryOutcome,
  DeliveryRows,
  EventType,
  RaiseStore,
  RouteRow,
  RoutingStore,
  Severity,
  SeverityOverrideRow,
} from '@appliance/notify-routing';
import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import { notifyAlerts, notifyChannels, notifyDeliveries, notifyRoutes, settings } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

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
      (routingStatements(db).overridesOf.get(eventType) as SeverityOverrideRow | undefined)?.severity ?? null,
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
    insertDeliveries: (deliveries) => {
      db.insert(notifyDeliveries)
        .values([...deliveries])
        .run();
    },
  };
}

// ── channels ───────────────────────────────────────────────────────────────────────────────────
export type ChannelRow = typeof notifyChannels.$inferSelect;

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
export function alertRows(db: Db): AlertRows {
  return {
    page(limit, before) {
      const q = db.select().from(notifyAlerts);
      return (before === null ? q : q.where(lt(notifyAlerts.id, before)))
        .orderBy(desc(notifyAlerts.id))
        .limit(limit)
        .all();
    },
  };
}

// ── the package's ports ────────────────────────────────────────────────────────────────────────
/** The settings hostname (08 §7.4 `host`). */
export function hostName(ctx: AppContext): string {
  return ctx.db.select({ hostname: settings.hostname }).from(settings).get()?.hostname ?? 'appliance';
}

const toRecord = (row: ChannelRow): ChannelRecord => ({
  id: row.id,
  name: row.name,
  type: row.type,
  enabled: row.enabled === 1,
  config: row.config,
  hasSecret: row.secret !== null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const rowValues = (write: ChannelWrite) => ({
  name: write.name,
  enabled: write.enabled ? 1 : 0,
  config: JSON.stringify(write.channel.config),
});

/** The `notify_channels` table behind the channel operations; audit rows of `actor`. */
export function createChannelStore(ctx: AppContext, actor: Actor | null): ChannelStore {
  return {
    list: async () => listChannels(ctx.db).map(toRecord),
    async get(id) {
      const row = findChannel(ctx.db, id);
      return row ? toRecord(row) : null;
    },
    async openSecret(id) {
      const row = findChannel(ctx.db, id);
      return row?.secret ? ctx.sealer.unsealText(row.secret) : null;
    },
    write(job, change = { kind: 'keep' }) {
      // Sealed outside the write job (CPU only); `undefined` keeps the stored secret.
      const secret =
        change.kind === 'keep' ? undefined : change.kind === 'set' ? ctx.sealer.seal(change.value) : null;
      const now = ctx.clock.now().toISOString();
      return ctx.writes.run((db) =>
        job({
          get: (id) => {
            const row = findChannel(db, id);
            return row ? toRecord(row) : null;
          },
          nameTaken: (name, exceptId) => nameTaken(db, name, exceptId),
          insert: (write) =>
            toRecord(
              db
                .insert(notifyChannels)
                .values({
                  id: ctx.random.uuid(),
                  type: write.channel.type,
                  ...rowValues(write),
                  secret: secret ?? null,
                  createdAt: now,
                  updatedAt: now,
                })
                .returning()
                .get(),
            ),
          update: (id, write) =>
            toRecord(
              db
                .update(notifyChannels)
                .set({ ...rowValues(write), ...(secret !== undefined ? { secret } : {}), updatedAt: now })
                .where(eq(notifyChannels.id, id))
                .returning()
                .get()!,
            ),
          remove: (id) => {
            db.delete(notifyRoutes).where(eq(notifyRoutes.channelId, id)).run();
            db.delete(notifyDeliveries).where(eq(notifyDeliveries.channelId, id)).run();
            db.delete(notifyChannels).where(eq(notifyChannels.id, id)).run();
          },
          audit: (entry) => ctx.audit.record(db, actor, entry),
        }),
      );
    },
  };
}

/** One attempt's outcome on its `notify_deliveries` row. */
function writeOutcome(db: Db, id: number, outcome: DeliveryOutcome, at: string) {
  const { status, attempts, nextAttemptAt, lastError } = outcome;
  db.update(notifyDeliveries)
    .set({ status, attempts, nextAttemptAt, lastError, updatedAt: at })
    .where(eq(notifyDeliveries.id, id))
    .run();
}

/** The `notify_deliveries` queue as the delivery worker's rows (secrets opened on demand). */
export function deliveryRows(ctx: AppContext): DeliveryRows {
  return {
    hostName: () => hostName(ctx),
    due: (now, limit) =>
      ctx.db
        .select({
          id: notifyDeliveries.id,
          attempts: notifyDeliveries.attempts,
          channel: notifyChannels,
          alert: notifyAlerts,
        })
        .from(notifyDeliveries)
        .innerJoin(notifyChannels, eq(notifyChannels.id, notifyDeliveries.channelId))
        .innerJoin(notifyAlerts, eq(notifyAlerts.id, notifyDeliveries.alertId))
        .where(and(eq(notifyDeliveries.status, 'pending'), sql`${notifyDeliveries.nextAttemptAt} <= ${now}`))
        .orderBy(asc(notifyDeliveries.nextAttemptAt), asc(notifyDeliveries.id))
        .limit(limit)
        .all()
        .map((row) => ({
          id: row.id,
          attempts: row.attempts,
          channel: { enabled: row.channel.enabled === 1, type: row.channel.type, config: row.channel.config },
          openSecret: () => (row.channel.secret ? ctx.sealer.unsealText(row.channel.secret) : null),
          alert: row.alert,
        })),
    recordAll: (outcomes, at) =>
      ctx.writes.run((db) => {
        for (const d of outcomes) writeOutcome(db, d.id, d.outcome, at);
      }),
    record: (id, outcome, at) => ctx.writes.run((db) => writeOutcome(db, id, outcome, at)),
  };
}
