/** `disk_offline` and `array_degraded`: the array slots against the inventory and the mount table. */
import { ARRAY_DEGRADED_KEY, DISK_KEY_PREFIX, evaluateDisks } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { readWatcherSettings } from './settings.ts';
import { observeSlots } from './slots.ts';

export function disksWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'disks',
    events: ['disk_offline', 'array_degraded'],
    owns: [DISK_KEY_PREFIX, ARRAY_DEGRADED_KEY],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.disks,
    async observe() {
      const { facts } = await observeSlots(ctx);
      return evaluateDisks(facts);
    },
  };
}
