/** GET/PUT /settings/watchers: the watchers' thresholds, intervals and UPS (`watcher_settings`). */
import { replaceWatcherSettings, WatcherSettingsSchema } from '@appliance/watchers';
import { defineRoute, ok } from '../../http/route.ts';
import { settingsPorts } from './deps.ts';
import { readWatcherSettings } from './store.ts';

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
    handler: async ({ ctx, actor, body }) =>
      ok(await replaceWatcherSettings(settingsPorts(ctx, actor), body)),
  }),
];
