/** The ports of @appliance/notify-routing wired to this server: channels, the raise path, the worker. */
import {
  type ChannelDeps,
  type ChannelSender,
  createDeliveryQueue,
  DeliveryWorker,
  type RaisedEvent,
  raiseEvent,
} from '@appliance/notify-routing';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import type { Actor } from '../../services/audit.ts';
import { createChannelStore, deliveryRows, hostName, raiseStore } from './store.ts';

/** The channel operations' ports, for one request of `actor`. */
export function channelDeps(ctx: AppContext, actor: Actor | null): ChannelDeps {
  return { store: createChannelStore(ctx, actor), hostName: () => hostName(ctx), clock: ctx.clock };
}

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
