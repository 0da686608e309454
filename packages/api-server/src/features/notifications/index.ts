import { createChannelSender } from '@appliance/notify-routing';
import type { Feature } from '../feature.ts';
import { alertRoutes } from './alert-routes.ts';
import { channelRoutes } from './channel-routes.ts';
import { raisers, startDeliveryWorker } from './deps.ts';
import { routingRoutes } from './routing-routes.ts';

/**
 * Notification routing (04), channels, test sends, alerts and delivery (08 §7). The package
 * @appliance/notify-routing holds every decision; these routes parse, call it and write.
 */
const send = createChannelSender();

export const feature: Feature = {
  name: 'notifications',
  routes: [...routingRoutes, ...channelRoutes(send), ...alertRoutes],
  start(ctx) {
    const worker = startDeliveryWorker(ctx, send);
    const { raise, within } = raisers(ctx, worker);
    ctx.hooks.raise = raise;
    ctx.hooks.raiseWithin = within;
    return () => worker.stop().then(() => undefined);
  },
};
