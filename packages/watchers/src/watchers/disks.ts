/**
 * `disk_offline` and `array_degraded`: the array slots against the inventory and the mount table.
 * Each cycle also keeps the array's mountpoints guarded (issue 32): the pool creates nothing on the
 * branch of an offline disk (`NC`, `RW` again once it is back), every slot's empty mountpoint
 * directory is sealed (`guardSlots`), and files hidden under a mounted disk are reported
 * (`disk_offline`).
 */
import { followOfflineBranches } from '@appliance/array-planner';
import { ARRAY_DEGRADED_KEY, DISK_KEY_PREFIX, evaluateDisks, type SlotFacts } from '../core/disks.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { DisksPorts } from './ports.ts';
import { observeSlots } from './slots.ts';

/** Offline as `evaluateDisks` counts it: gone from the system, or nothing mounted at the slot. */
const isOffline = (s: SlotFacts) => s.match === 'missing' || !s.mounted;

export function disksWatcher(ports: DisksPorts): WatcherDefinition {
  /**
   * The branches were found as they should be while every disk was online: until a disk goes
   * offline there is nothing to read (no `getfattr` every cycle). The first cycle always reads
   * (an earlier run may have left a branch `NC`).
   */
  let settled = false;
  const models = new Map<string, string>();
  return {
    name: 'disks',
    events: ['disk_offline', 'array_degraded'],
    owns: [DISK_KEY_PREFIX, ARRAY_DEGRADED_KEY],
    intervalSeconds: () => ports.settings().intervals.disks,
    async observe() {
      const { facts } = await observeSlots(ports, models);
      if (facts.length === 0) return evaluateDisks(facts);
      const branches = facts
        .filter((s) => s.role !== 'parity')
        .map((s) => ({ mountpoint: s.mountpoint, offline: isOffline(s) }));
      const anyOffline = branches.some((b) => b.offline);
      let changed: Awaited<ReturnType<typeof followOfflineBranches>> = [];
      if (anyOffline || !settled) {
        // a failure here never keeps the cycle from saying which disks are offline
        try {
          changed = await followOfflineBranches(ports.runner, ports.paths, branches);
          settled = !anyOffline;
        } catch (err) {
          ports.logger.warn('the pool branches could not follow the offline disks', {
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
      for (const c of changed)
        ports.logger.warn(
          c.to === 'NC'
            ? `the pool creates no new file on ${c.mountpoint} while its disk is offline`
            : `${c.mountpoint} is back: the pool creates files there again`,
          { mountpoint: c.mountpoint, from: c.from, to: c.to },
        );
      const guards = (await ports.guardSlots?.()) ?? new Map();
      return evaluateDisks(
        facts.map((s) => {
          const g = guards.get(s.mountpoint);
          return g?.mounted && g.count > 0 ? { ...s, hidden: { count: g.count, entries: g.entries } } : s;
        }),
      );
    },
  };
}
