/**
 * The watchers' tables: `watcher_settings` (absent = the defaults) and `smart_readings` (the SMART
 * history the smart watcher keeps, read by GET /disks/:id/smart).
 */
import type { SmartHistory, SmartHistoryRow, WatcherSettings } from '@appliance/watchers';
import { HISTORY_ROWS_PER_DISK, settingsFromJson } from '@appliance/watchers';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import { smartReadings, watcherSettings } from '../../db/schema.ts';

const readQuery = preparedPerConnection((db) =>
  db.select().from(watcherSettings).where(eq(watcherSettings.id, 1)).prepare(),
);

/** The settings in force (read fresh: a PUT or a config import takes effect at the next cycle). */
export function readWatcherSettings(db: Db): WatcherSettings {
  return settingsFromJson(readQuery(db).get()?.settings);
}

/** Replaces the settings (inside the caller's write job). */
export function writeWatcherSettings(db: Db, settings: WatcherSettings, at: string): void {
  const json = JSON.stringify(settings);
  db.insert(watcherSettings)
    .values({ id: 1, settings: json, updatedAt: at })
    .onConflictDoUpdate({ target: watcherSettings.id, set: { settings: json, updatedAt: at } })
    .run();
}

const toHistory = (r: typeof smartReadings.$inferSelect) => ({
  at: r.at,
  passed: r.passed === null ? null : r.passed === 1,
  temperatureC: r.temperatureC,
  powerOnHours: r.powerOnHours,
  counters: JSON.parse(r.counters) as Record<string, number>,
});

/** A disk's kept SMART readings, newest first. */
export function smartHistoryOf(db: Db, diskKey: string, limit: number) {
  return db
    .select()
    .from(smartReadings)
    .where(eq(smartReadings.diskKey, diskKey))
    .orderBy(desc(smartReadings.at), desc(smartReadings.id))
    .limit(limit)
    .all()
    .map(toHistory);
}

/** The SMART history port of the smart watcher on `smart_readings`. */
export function createSmartHistory(ctx: Pick<AppContext, 'db' | 'writes'>): SmartHistory {
  return {
    latest: (diskKey) => smartHistoryOf(ctx.db, diskKey, 1)[0] ?? null,
    async record(rows: readonly SmartHistoryRow[]) {
      await ctx.writes.run((db) => {
        for (const row of rows) {
          db.insert(smartReadings)
            .values({
              ...row,
              passed: row.passed === null ? null : row.passed ? 1 : 0,
              counters: JSON.stringify(row.counters),
            })
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
    },
  };
}
