/**
 * The appliance watches itself (issue 22, 09 "Watchers"): the watchers of the service, GET /health,
 * the watchers' settings. The loops and every watcher (facts, decisions, messages) are in
 * @appliance/watchers, the raise-once conditions in @appliance/jobs; `deps.ts` wires the ports.
 */
import { applianceWatchers } from '@appliance/watchers';
import type { Feature } from '../feature.ts';
import { upsConfigured, watcherPorts, watchesCertificate } from './deps.ts';
import { healthRoute } from './health.ts';
import { settingsRoutes } from './settings.ts';
import { smartRoute } from './smart-route.ts';

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
    for (const watcher of applianceWatchers(watcherPorts(ctx))) ctx.watchers.register(watcher);
  },
};
