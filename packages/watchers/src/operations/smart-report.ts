/**
 * A disk's SMART report (`GET /disks/:id/smart`): the disk found by kernel name in the inventory,
 * its array slot (by identity, not by device name), the key its readings are kept under, the last
 * reading the smart watcher took with what it means under the thresholds in force, and the kept
 * history, newest first.
 */
import { findDisk, refuse } from '@appliance/common';
import { type SmartFinding, smartCounters, smartDiskKey, smartFindings } from '../core/smart.ts';
import type { WatcherFactsPorts } from '../watchers/ports.ts';
import { slotIdentity } from '../watchers/slots.ts';

/** A kept reading as the report shows it. */
export interface SmartHistoryEntry {
  at: string;
  passed: boolean | null;
  temperatureC: number | null;
  powerOnHours: number | null;
  counters: Record<string, number>;
}

export type SmartReportPorts = Pick<WatcherFactsPorts, 'inventory' | 'slots' | 'settings' | 'smartLast'> & {
  /** A disk's kept readings, newest first, at most `limit`. */
  smartHistoryOf(diskKey: string, limit: number): SmartHistoryEntry[];
};

/** A finding as reported: the sentence is what was found, then what to do. */
const reported = (f: SmartFinding) => ({
  id: f.id,
  eventType: f.eventType,
  value: f.value,
  message: `${f.what} ${f.todo}`,
});

/** The report of the disk `name` (sda, nvme0n1); `disk_not_found` when no such disk is present. */
export async function smartReport(ports: SmartReportPorts, name: string, limit: number) {
  const device = `/dev/${name}`;
  const inventory = await ports.inventory.read();
  const entry = inventory.disks.find((d) => d.device === device);
  if (!entry)
    throw refuse('disk_not_found', `There is no disk ${name}; list the disks with GET /disks.`, { device });
  const slot = ports.slots().find((s) => findDisk(slotIdentity(s), [entry]).status === 'found') ?? null;
  const diskKey = smartDiskKey({
    wwn: slot ? slot.wwn : entry.wwn,
    serial: slot ? slot.serial : entry.serial,
    device,
  });
  const last = ports.smartLast.get(diskKey) ?? null;
  const th = ports.settings().smart;
  const history = ports.smartHistoryOf(diskKey, limit);
  return {
    device,
    diskKey,
    model: entry.model ?? last?.reading.model ?? null,
    serial: slot?.serial ?? entry.serial ?? last?.reading.serial ?? null,
    slot: slot?.mountpoint ?? null,
    last: last
      ? {
          at: last.at,
          state: last.reading.state,
          detail: last.reading.detail,
          passed: last.reading.passed,
          temperatureC: last.reading.temperatureC,
          powerOnHours: last.reading.powerOnHours,
          counters: smartCounters(last.reading),
          // findings only of a reading that answered (a disk in standby or unreadable has none)
          findings: last.reading.state === 'ok' ? smartFindings(last.reading, th).map(reported) : [],
        }
      : null,
    history,
  };
}
