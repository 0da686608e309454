/**
 * The appliance watches itself (issue 22, 09 "Watchers"): the watchers of the service, GET /health,
 * the watchers' settings. The mechanism (loops, conditions, raise once) is in
 * services/watchers.ts and services/conditions.ts; every decision and message is in
 * @appliance/watchers.
 */
import type { Feature } from '../feature.ts';
import { certificateWatcher, watchesCertificate } from './certificate-watcher.ts';
import { disksWatcher } from './disks-watcher.ts';
import { containersWatcher, imagesWatcher } from './docker-watchers.ts';
import { driftWatcher } from './drift-watcher.ts';
import { healthRoute } from './health.ts';
import { settingsRoutes } from './settings.ts';
import { smartRoute } from './smart-route.ts';
import { smartWatcher } from './smart-watcher.ts';
import { spaceWatcher } from './space-watcher.ts';
import { upsConfigured, upsWatcher } from './ups-watcher.ts';

export const feature: Feature = {
  name: 'watchers',
  raises: [
    'smart_warning',
    'smart_failure',
    'disk_offline',
    'array_degraded',
    'pool_above_threshold',
    'disk_near_minfreespace',
    'cache_above_threshold',
    'config_drift_detected',
    'container_unhealthy',
    'container_update_available',
    { eventType: 'certificate_expiring', when: watchesCertificate },
    { eventType: 'ups_on_battery', when: upsConfigured },
    { eventType: 'ups_battery_low', when: upsConfigured },
  ],
  routes: [healthRoute, ...settingsRoutes, smartRoute],
  start(ctx) {
    ctx.watchers.register(disksWatcher(ctx));
    ctx.watchers.register(spaceWatcher(ctx));
    ctx.watchers.register(smartWatcher(ctx));
    ctx.watchers.register(driftWatcher(ctx));
    ctx.watchers.register(certificateWatcher(ctx));
    ctx.watchers.register(containersWatcher(ctx));
    ctx.watchers.register(imagesWatcher(ctx));
    ctx.watchers.register(upsWatcher(ctx));
  },
};
