/**
 * `ups_on_battery`, `ups_battery_low`: the UPS of the settings through NUT's upsd (network
 * protocol, read-only). Without a UPS in the settings the watcher does not run, and its events are
 * not observed.
 */
import { evaluateUps, UPS_KEY_PREFIX } from '../core/ups.ts';
import { readUpsVariables } from '../node/nut.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { UpsPorts } from './ports.ts';

export const upsConfigured = (ports: UpsPorts) => ports.settings().ups !== null;

export function upsWatcher(ports: UpsPorts): WatcherDefinition {
  return {
    name: 'ups',
    events: ['ups_on_battery', 'ups_battery_low'],
    owns: [UPS_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.ups,
    enabled: () => upsConfigured(ports),
    disabledReason: 'no UPS in the settings (PUT /settings/watchers, ups)',
    async observe() {
      const ups = ports.settings().ups;
      if (!ups) return { conditions: [] };
      const vars = await readUpsVariables(ups);
      return evaluateUps({ ...ups, vars });
    },
  };
}
