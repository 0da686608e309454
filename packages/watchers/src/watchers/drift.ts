/**
 * `config_drift_detected`: every generated file the service recorded against what is on disk now.
 * A file back to what the service wrote, or written again by the service, clears.
 */
import { DRIFT_KEY_PREFIX, evaluateDrift, type GeneratedFileFacts } from '../core/drift.ts';
import { readGeneratedFile } from '../node/files.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { DriftPorts } from './ports.ts';

export function driftWatcher(ports: DriftPorts): WatcherDefinition {
  return {
    name: 'drift',
    events: ['config_drift_detected'],
    owns: [DRIFT_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.drift,
    async observe() {
      const facts: GeneratedFileFacts[] = [];
      for (const f of ports.generatedFiles()) {
        const current = await readGeneratedFile(f.real);
        // recorded again meanwhile (the service rewrote it while this one was read): not drift
        const now = ports.generatedFiles().find((g) => g.path === f.path);
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
