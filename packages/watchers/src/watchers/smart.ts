/**
 * `smart_warning`, `smart_failure`: every array disk present in the inventory, one at a time,
 * through `smartctl --json -a -n standby` (a sleeping disk is never woken); the last reading of
 * each disk kept in `smartLast`, the values in the history (`smartHistory`).
 */
import { findDisk } from '@appliance/common';
import {
  evaluateSmart,
  keepInHistory,
  SMART_KEY_PREFIX,
  type SmartDisk,
  smartCounters,
  smartDiskKey,
  smartKeyPrefix,
} from '../core/smart.ts';
import { readSmart } from '../node/smartctl.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { SmartHistoryRow, SmartPorts } from './ports.ts';
import { modelFromById, slotIdentity } from './slots.ts';

export function smartWatcher(ports: SmartPorts): WatcherDefinition {
  return {
    name: 'smart',
    events: ['smart_warning', 'smart_failure'],
    owns: [SMART_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.smart,
    async observe() {
      const slots = ports.slots();
      if (slots.length === 0) return { conditions: [] };
      const inventory = await ports.inventory.read();
      const disks: SmartDisk[] = [];
      const unobserved: string[] = [];
      for (const s of slots) {
        const m = findDisk(slotIdentity(s), inventory);
        const device = m.status === 'found' ? m.disk.device : null;
        const diskKey = smartDiskKey({ wwn: s.wwn, serial: s.serial, device: device ?? s.device });
        if (!device) {
          // offline (the disks watcher says so): its SMART conditions stay as they are
          unobserved.push(smartKeyPrefix(diskKey));
          continue;
        }
        const reading = await readSmart(ports.runner, device);
        ports.smartLast.set(diskKey, { at: ports.clock.now().toISOString(), device, reading });
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
      await recordHistory(ports, disks);
      const observation = evaluateSmart(disks, ports.settings().smart);
      return { ...observation, unobserved: [...(observation.unobserved ?? []), ...unobserved] };
    },
  };
}

/** Keeps each ok reading that changed something, or is a day newer than the last kept one. */
async function recordHistory(ports: SmartPorts, disks: readonly SmartDisk[]): Promise<void> {
  const now = ports.clock.now();
  const rows = disks
    .filter((d) => d.reading.state === 'ok')
    .map(
      (d): SmartHistoryRow => ({
        diskKey: d.diskKey,
        device: d.device ?? '',
        at: now.toISOString(),
        passed: d.reading.passed,
        temperatureC: d.reading.temperatureC,
        powerOnHours: d.reading.powerOnHours,
        counters: smartCounters(d.reading),
      }),
    )
    .filter((row) =>
      keepInHistory(
        { passed: row.passed, counters: row.counters },
        ports.smartHistory.latest(row.diskKey),
        now,
      ),
    );
  if (rows.length > 0) await ports.smartHistory.record(rows);
}
