/** The watchers' settings: `watcher_settings` (absent = the defaults) and GET/PUT /settings/watchers. */
import {
  DEFAULT_SETTINGS,
  settingsFromStored,
  type WatcherSettings,
  WatcherSettingsSchema,
} from '@appliance/watchers';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import { watcherSettings } from '../../db/schema.ts';
import { defineRoute, ok } from '../../http/route.ts';

const readQuery = preparedPerConnection((db) =>
  db.select().from(watcherSettings).where(eq(watcherSettings.id, 1)).prepare(),
);

/** The settings in force (read fresh: a PUT or a config import takes effect at the next cycle). */
export function readWatcherSettings(db: Db): WatcherSettings {
  const row = readQuery(db).get();
  if (!row) return structuredClone(DEFAULT_SETTINGS);
  try {
    return settingsFromStored(JSON.parse(row.settings));
  } catch {
    return structuredClone(DEFAULT_SETTINGS);
  }
}

export const settingsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/settings/watchers',
    role: 'viewer',
    summary: "The watchers' thresholds, intervals (seconds) and UPS",
    tags: ['settings'],
    responses: { 200: { description: 'Watcher settings', schema: WatcherSettingsSchema } },
    handler: ({ ctx }) => ok(readWatcherSettings(ctx.db)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/settings/watchers',
    role: 'admin',
    summary: "Replace the watchers' thresholds, intervals and UPS (each interval has a minimum)",
    tags: ['settings'],
    body: WatcherSettingsSchema,
    responses: { 200: { description: 'Watcher settings', schema: WatcherSettingsSchema } },
    handler: async ({ ctx, actor, body }) => {
      const saved = await ctx.writes.run((db) => {
        const now = ctx.clock.now().toISOString();
        const settings = JSON.stringify(body);
        db.insert(watcherSettings)
          .values({ id: 1, settings, updatedAt: now })
          .onConflictDoUpdate({ target: watcherSettings.id, set: { settings, updatedAt: now } })
          .run();
        ctx.audit.record(db, actor, {
          operation: 'settings.watchers_update',
          target: 'settings/watchers',
          details: body as unknown as Record<string, unknown>,
        });
        return readWatcherSettings(db);
      });
      ctx.watchers.reschedule();
      return ok(saved);
    },
  }),
];
