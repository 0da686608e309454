/**
 * `ups_on_battery`, `ups_battery_low`: the UPS of the settings through NUT's upsd (network
 * protocol, read-only). Without a UPS in the settings the watcher does not run, and its events are
 * not observed.
 */
import { evaluateUps, readUpsVariables, UPS_KEY_PREFIX } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { readWatcherSettings } from './settings.ts';

export const upsConfigured = (ctx: AppContext) => readWatcherSettings(ctx.db).ups !== null;

export function upsWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'ups',
    events: ['ups_on_battery', 'ups_battery_low'],
    owns: [UPS_KEY_PREFIX],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.ups,
    enabled: () => upsConfigured(ctx),
    disabledReason: 'no UPS in the settings (PUT /settings/watchers, ups)',
    async observe() {
      const ups = readWatcherSettings(ctx.db).ups;
      if (!ups) return { conditions: [] };
      const vars = await readUpsVariables(ups);
      return evaluateUps({ ...ups, vars });
    },
  };
}
