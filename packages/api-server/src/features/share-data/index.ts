import { closeIdleWorkers, ShareDeleteGuard } from '@appliance/shares';
import type { Feature } from '../feature.ts';
import { deleteRoute } from './delete-route.ts';
/** Share data delete (05): POST /shares/:name/data/delete, and the "delete running" hook for DELETE /shares. */
export const feature: Feature = {
  name: 'share-data',
  start: (ctx) => {
    const guard = ShareDeleteGuard.of(ctx.locks);
    ctx.hooks.shareDataDeleteRunning = (name) => guard.running(name);
    // idle delete threads end by themselves after 30 s; at shutdown, at once
    return () => closeIdleWorkers();
  },
  routes: [deleteRoute],
};
