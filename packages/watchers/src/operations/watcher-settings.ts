/**
 * The watchers' settings replaced (`PUT /settings/watchers`): written with their audit entry in one
 * write, then the loops rescheduled (a changed interval takes effect now, not after the old one).
 */
import type { WatcherSettings } from '../core/settings.ts';

export interface WatcherSettingsPorts {
  /** Writes the settings and the audit entry together; answers the settings now stored. */
  save(
    settings: WatcherSettings,
    audit: { operation: string; target: string; details: Record<string, unknown> },
  ): Promise<WatcherSettings>;
  /** The loops take the new intervals. */
  reschedule(): void;
}

export async function replaceWatcherSettings(
  ports: WatcherSettingsPorts,
  settings: WatcherSettings,
): Promise<WatcherSettings> {
  const saved = await ports.save(settings, {
    operation: 'settings.watchers_update',
    target: 'settings/watchers',
    details: settings as unknown as Record<string, unknown>,
  });
  ports.reschedule();
  return saved;
}
