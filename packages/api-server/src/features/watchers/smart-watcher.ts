/**
 * `smart_warning`, `smart_failure`: every array disk present in the inventory, one at a time,
 * through `smartctl --json -a -n standby` (a sleeping disk is never woken); the values kept in
 * `smart_readings` for GET /disks/:id/smart.
 */
import {
  evaluateSmart,
  keepInHistory,
  readSmart,
  SMART_KEY_PREFIX,
  type SmartDisk,
  type SmartReading,
  smartCounters,
  smartDiskKey,
  smartKeyPrefix,
} from '@appliance/watchers';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { smartReadings } from '../../db/schema.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { listSlots } from '../disks/store.ts';
import { findDisk } from '@appliance/common';
import { readWatcherSettings } from './settings.ts';
import { modelFromById } from './slots.ts';

/** Rows kept per disk (at most one a day without a change: years of history). */
export const HISTORY_ROWS_PER_DISK = 5000;

export interface LastSmart {
  at: string;
  device: string;
  reading: SmartReading;
}

/** The last reading of each disk (by disk key), for GET /disks/:id/smart. */
const lastByContext = new WeakMap<AppContext, Map<string, LastSmart>>();
export function lastReadings(ctx: AppContext): Map<string, LastSmart> {
  let m = lastByContext.get(ctx);
  if (!m) {
    m = new Map();
    lastByContext.set(ctx, m);
  }
  return m;
}

export function smartWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'smart',
    events: ['smart_warning', 'smart_failure'],
    owns: [SMART_KEY_PREFIX],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.smart,
    async observe() {
      const slots = listSlots(ctx.db);
      if (slots.length === 0) return { conditions: [] };
      const inventory = await ctx.inventory.read();
      const disks: SmartDisk[] = [];
      const unobserved: string[] = [];
      const last = lastReadings(ctx);
      for (const s of slots) {
        const m = findDisk(
          {
            wwn: s.wwn,
            serial: s.serial,
            weakIdentity: s.weakIdentity,
            fsUuid: s.fsUuid,
            sizeBytes: s.sizeBytes,
          },
          inventory,
        );
        const device = m.status === 'found' ? m.disk.device : null;
        const diskKey = smartDiskKey({ wwn: s.wwn, serial: s.serial, device: device ?? s.device });
        if (!device) {
          // offline (the disks watcher says so): its SMART conditions stay as they are
          unobserved.push(smartKeyPrefix(diskKey));
          continue;
        }
        const reading = await readSmart(ctx.runner, device);
        last.set(diskKey, { at: ctx.clock.now().toISOString(), device, reading });
        disks.push({
          role: s.role,
          roleIndex: s.roleIndex,
          mountpoint: s.mountpoint,
          device,
          model: m.status === 'found' ? m.disk.model : modelFromById(s.byIdName, s.serial),
          serial: s.serial,
          diskKey,
          reading,
        });
      }
      await recordHistory(ctx, disks);
      const observation = evaluateSmart(disks, readWatcherSettings(ctx.db).smart);
      return { ...observation, unobserved: [...(observation.unobserved ?? []), ...unobserved] };
    },
  };
}

/** Keeps each ok reading that changed something, or is a day newer than the last kept one. */
async function recordHistory(ctx: AppContext, disks: readonly SmartDisk[]): Promise<void> {
  const now = ctx.clock.now();
  const rows = disks
    .filter((d) => d.reading.state === 'ok')
    .map((d) => ({
      diskKey: d.diskKey,
      device: d.device ?? '',
      at: now.toISOString(),
      passed: d.reading.passed === null ? null : d.reading.passed ? 1 : 0,
      temperatureC: d.reading.temperatureC,
      powerOnHours: d.reading.powerOnHours,
      counters: smartCounters(d.reading),
    }))
    .filter((row) => {
      const previous = ctx.db
        .select()
        .from(smartReadings)
        .where(eq(smartReadings.diskKey, row.diskKey))
        .orderBy(desc(smartReadings.at), desc(smartReadings.id))
        .limit(1)
        .get();
      return keepInHistory(
        { passed: row.passed === null ? null : row.passed === 1, counters: row.counters },
        previous
          ? {
              passed: previous.passed === null ? null : previous.passed === 1,
              counters: JSON.parse(previous.counters) as Record<string, number>,
              at: previous.at,
            }
          : null,
        now,
      );
    });
  if (rows.length === 0) return;
  await ctx.writes.run((db) => {
    for (const row of rows) {
      db.insert(smartReadings)
        .values({ ...row, counters: JSON.stringify(row.counters) })
        .run();
      const cutoff = db
        .select({ at: smartReadings.at })
        .from(smartReadings)
        .where(eq(smartReadings.diskKey, row.diskKey))
        .orderBy(desc(smartReadings.at))
        .limit(1)
        .offset(HISTORY_ROWS_PER_DISK)
        .get();
      if (cutoff)
        db.delete(smartReadings)
          .where(and(eq(smartReadings.diskKey, row.diskKey), lt(smartReadings.at, cutoff.at)))
          .run();
    }
  });
}
