/** The ports of @appliance/notify-routing wired to this server: channels, routing, the raise path, the worker. */
import {
  type ChannelDeps,
  type ChannelSender,
  createDeliveryQueue,
  createRaiser,
  DeliveryWorker,
  type RoutingWrites,
} from '@appliance/notify-routing';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { createChannelStore, deliveryRows, hostName, raiseStore, routingStore } from './store.ts';

/** The channel operations' ports, for one request of `actor`. */
export function channelDeps(ctx: AppContext, actor: Actor | null): ChannelDeps {
  return { store: createChannelStore(ctx, actor), hostName: () => hostName(ctx), clock: ctx.clock };
}

/** A routing replace as one write job, its audit row of `actor` in the same job. */
export function routingWrites(ctx: AppContext, actor: Actor | null): RoutingWrites {
  return {
    run: (job) =>
      ctx.writes.run((db) => job(routingStore(db), (entry) => ctx.audit.record(db, actor, entry))),
  };
}

/**
 * The raise path (04 §4) in its own write job (`raise`) or the caller's (`within`: the watchers'
 * conditions commit with their alert); after the commit, the SSE `notification` push and a nudge
 * to the worker.
 */
export function raisers(ctx: AppContext, worker: DeliveryWorker | null) {
  return createRaiser({
    write: (job) => ctx.writes.run(job),
    store: raiseStore,
    clock: ctx.clock,
    announce: (alert) => {
      ctx.events.publish({ type: 'notification', id: alert.id, data: { ...alert } });
      worker?.wake();
    },
  });
}

export function startDeliveryWorker(ctx: AppContext, send: ChannelSender): DeliveryWorker {
  const worker = new DeliveryWorker({
    store: createDeliveryQueue(deliveryRows(ctx)),
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
