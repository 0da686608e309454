/**
 * `config_drift_detected`: every generated file the service recorded (services/generated-files.ts)
 * against what is on disk now. A file back to what the service wrote, or written again by the
 * service, clears.
 */
import {
  DRIFT_KEY_PREFIX,
  evaluateDrift,
  type GeneratedFileFacts,
  readGeneratedFile,
} from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { readWatcherSettings } from './settings.ts';

export function driftWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'drift',
    events: ['config_drift_detected'],
    owns: [DRIFT_KEY_PREFIX],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.drift,
    async observe() {
      const facts: GeneratedFileFacts[] = [];
      for (const f of ctx.generated.list()) {
        const current = await readGeneratedFile(f.real);
        // recorded again meanwhile (the service rewrote it while this one was read): not drift
        const now = ctx.generated.list().find((g) => g.path === f.path);
        if (!now) continue;
        facts.push({
          path: f.path,
          recorded: { sha256: now.sha256, content: now.content, writtenAt: now.writtenAt },
          current,
        });
      }
      return evaluateDrift(facts);
    },
  };
}
