import {
  type DeliveryQueueStore,
  type DueDelivery,
  DeliveryWorker,
  parseStoredConfig,
  type ChannelSender,
  type RaisedEvent,
  raiseEvent,
  type Severity,
} from '@appliance/notify-routing';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { notifyDeliveries } from '../../db/schema.ts';
import { defineRoute, ok } from '../../http/route.ts';
import { PageQuery } from '../../http/schemas.ts';
import { hostName } from './channel-routes.ts';
import { AlertsPageSchema } from './schemas.ts';
import { dueDeliveryRows, listAlerts, raiseStore } from './store.ts';

export const alertRoutes = [
  defineRoute({
    method: 'GET',
    path: '/notifications/alerts',
    role: 'viewer',
    summary: 'In-app alerts, newest first (every raised event, routed or not)',
    tags: ['notifications'],
    query: PageQuery,
    responses: { 200: { description: 'A page of alerts', schema: AlertsPageSchema } },
    handler: ({ ctx, query }) => ok(listAlerts(ctx.db, query.limit, query.before ?? null)),
  }),
];

/**
 * The raise path (04 §4): effective severity stamped, alert row and one delivery per enabled routed
 * channel in one write job, then the SSE `notification` push and a nudge to the worker.
 */
export function raiser(ctx: AppContext, worker: DeliveryWorker | null) {
  return async (event: RaisedEvent) => {
    const { alert } = await ctx.writes.run((db) => raiseEvent(raiseStore(db), event, ctx.clock.now()));
    ctx.events.publish({ type: 'notification', id: alert.id, data: { ...alert } });
    worker?.wake();
  };
}

/**
 * The raise path inside a caller's write job (the watchers' conditions commit with their alert);
 * `announce` after the commit does what `raiser` does after its own job.
 */
export function raiserWithin(ctx: AppContext, worker: DeliveryWorker | null) {
  return (db: Db, event: RaisedEvent) => {
    const { alert } = raiseEvent(raiseStore(db), event, ctx.clock.now());
    return {
      alertId: alert.id,
      announce: () => {
        ctx.events.publish({ type: 'notification', id: alert.id, data: { ...alert } });
        worker?.wake();
      },
    };
  };
}

/** The `notify_deliveries` queue for the worker: opens secrets, skips channels disabled meanwhile. */
export function deliveryQueue(ctx: AppContext): DeliveryQueueStore {
  return {
    async due(now, limit) {
      const host = hostName(ctx);
      const ready: DueDelivery[] = [];
      const dropped: Array<{ id: number; attempts: number; error: string }> = [];
      for (const row of dueDeliveryRows(ctx.db, now.toISOString(), limit)) {
        if (row.channel.enabled !== 1) {
          dropped.push({
            id: row.id,
            attempts: row.attempts,
            error: 'the channel was disabled before delivery',
          });
          continue;
        }
        try {
          ready.push({
            id: row.id,
            attempts: row.attempts,
            channel: parseStoredConfig(row.channel.type, JSON.parse(row.channel.config)),
            secret: row.channel.secret ? ctx.sealer.unsealText(row.channel.secret) : null,
            message: {
              eventType: row.alert.eventType,
              severity: row.alert.severity as Severity,
              title: row.alert.title,
              message: row.alert.message,
              occurredAt: row.alert.occurredAt,
              host,
            },
          });
        } catch {
          dropped.push({
            id: row.id,
            attempts: row.attempts,
            error: 'the channel configuration could not be read',
          });
        }
      }
      if (dropped.length > 0) {
        const at = now.toISOString();
        await ctx.writes.run((db) => {
          for (const d of dropped) {
            db.update(notifyDeliveries)
              .set({ status: 'failed', nextAttemptAt: null, lastError: d.error, updatedAt: at })
              .where(eq(notifyDeliveries.id, d.id))
              .run();
          }
        });
      }
      return ready;
    },
    async record(id, outcome, at) {
      await ctx.writes.run((db) =>
        db
          .update(notifyDeliveries)
          .set({
            status: outcome.status,
            attempts: outcome.attempts,
            nextAttemptAt: outcome.nextAttemptAt,
            lastError: outcome.lastError,
            updatedAt: at.toISOString(),
          })
          .where(eq(notifyDeliveries.id, id))
          .run(),
      );
    },
  };
}

export function startDeliveryWorker(ctx: AppContext, send: ChannelSender): DeliveryWorker {
  const worker = new DeliveryWorker({
    store: deliveryQueue(ctx),
    send,
    clock: ctx.clock,
    onError: (error) =>
      ctx.logger.error('notification delivery tick failed', {
        error: error instanceof Error ? error.message : String(error),
      }),
  });
  worker.start();
  return worker;
}
