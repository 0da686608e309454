/**
 * `disk_offline` and `array_degraded`: the array slots against the inventory and the mount table.
 * Each cycle also keeps the array's mountpoints guarded (issue 32): the pool creates nothing on the
 * branch of an offline disk (`NC`, `RW` again once it is back), every slot's empty mountpoint
 * directory is sealed, and files hidden under a mounted disk are reported (`disk_offline`).
 */
import { followOfflineBranches } from '@appliance/array-planner';
import { ARRAY_DEGRADED_KEY, DISK_KEY_PREFIX, evaluateDisks, type SlotFacts } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { guardSlots } from '../disks/mountpoints.ts';
import { readWatcherSettings } from './settings.ts';
import { observeSlots } from './slots.ts';

/** Offline as `evaluateDisks` counts it: gone from the system, or nothing mounted at the slot. */
const isOffline = (s: SlotFacts) => s.match === 'missing' || !s.mounted;

export function disksWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'disks',
    events: ['disk_offline', 'array_degraded'],
    owns: [DISK_KEY_PREFIX, ARRAY_DEGRADED_KEY],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.disks,
    async observe() {
      const { facts } = await observeSlots(ctx);
      if (facts.length === 0) return evaluateDisks(facts);
      const changed = await followOfflineBranches(
        ctx.runner,
        ctx.paths,
        facts
          .filter((s) => s.role !== 'parity')
          .map((s) => ({ mountpoint: s.mountpoint, offline: isOffline(s) })),
      );
      for (const c of changed)
        ctx.logger.warn(
          c.to === 'NC'
            ? `the pool creates no new file on ${c.mountpoint} while its disk is offline`
            : `${c.mountpoint} is back: the pool creates files there again`,
          { mountpoint: c.mountpoint, from: c.from, to: c.to },
        );
      const guards = await guardSlots(ctx);
      return evaluateDisks(
        facts.map((s) => {
          const g = guards.get(s.mountpoint);
          return g?.mounted && g.count > 0 ? { ...s, hidden: { count: g.count, entries: g.entries } } : s;
        }),
      );
    },
  };
}
