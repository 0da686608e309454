/**
 * The watchers' operations over in-memory ports: the SMART report of a disk (found by kernel name,
 * matched to its slot by identity, the last reading's findings, the history) and the settings
 * replaced (saved with their audit entry, then the loops rescheduled).
 */
import type { DiskInventoryEntry } from '@appliance/common';
import { isRefusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, settingsFromJson } from '../core/settings.ts';
import type { SmartReading } from '../core/smart.ts';
import type { LastSmart, WatchedSlot } from '../watchers/ports.ts';
import { type SmartHistoryEntry, smartReport } from './smart-report.ts';
import { replaceWatcherSettings } from './watcher-settings.ts';

const entry: DiskInventoryEntry = {
  device: '/dev/sdb',
  sizeBytes: 1000,
  model: 'Hitachi HDS721050DLE630',
  wwn: null,
  serial: 'MSK423Y20S3HBC',
  byIdName: null,
  weakIdentity: false,
  filesystem: 'xfs',
  label: null,
  fsUuid: 'uuid-1',
  fsDevice: null,
  partitions: [],
  mountpoints: [],
  holders: [],
  inUse: true,
  probeFailed: false,
  boot: false,
  foreignStick: false,
};
const slot: WatchedSlot = {
  role: 'data',
  roleIndex: 1,
  device: '/dev/sdz', // recorded under another name: found by serial
  fsUuid: 'uuid-1',
  wwn: null,
  serial: 'MSK423Y20S3HBC',
  byIdName: null,
  weakIdentity: false,
  sizeBytes: 1000,
  mountpoint: '/mnt/disk1',
  removalState: null,
};
const reading = (over: Partial<SmartReading>): SmartReading => ({
  state: 'ok',
  detail: null,
  protocol: 'ATA',
  model: null,
  serial: null,
  firmware: null,
  passed: true,
  temperatureC: 35,
  powerOnHours: 1000,
  ata: { 5: 8 },
  failingNow: [],
  nvme: null,
  ...over,
});

function ports(last: LastSmart | null, slots: WatchedSlot[] = [slot]) {
  const asked: Array<[string, number]> = [];
  const kept: SmartHistoryEntry[] = [
    { at: 'h1', passed: true, temperatureC: 30, powerOnHours: 9, counters: {} },
  ];
  const smartLast = new Map<string, LastSmart>();
  if (last) smartLast.set('serial:MSK423Y20S3HBC', last);
  return {
    asked,
    ports: {
      inventory: { read: async () => ({ labMode: false, bootResolved: true, disks: [entry] }) },
      slots: () => slots,
      settings: () => DEFAULT_SETTINGS,
      smartLast,
      smartHistoryOf: (key: string, limit: number) => {
        asked.push([key, limit]);
        return kept;
      },
    },
  };
}

describe('smartReport', () => {
  it('reports the slot, the last reading with its findings, and the history under the disk key', async () => {
    const t = ports({ at: 'a1', device: '/dev/sdb', reading: reading({}) });
    const report = await smartReport(t.ports, 'sdb', 20);
    expect(report).toMatchObject({
      device: '/dev/sdb',
      diskKey: 'serial:MSK423Y20S3HBC',
      slot: '/mnt/disk1',
    });
    expect(report.model).toBe('Hitachi HDS721050DLE630');
    expect(report.last?.counters).toMatchObject({ reallocatedSectors: 8 });
    expect(report.last?.findings.map((f) => f.eventType)).toContain('smart_warning');
    expect(report.last?.findings[0]?.message).toMatch(/\S \S/);
    expect(report.history).toHaveLength(1);
    expect(t.asked).toEqual([['serial:MSK423Y20S3HBC', 20]]);
  });

  it('a reading in standby has no findings; a disk outside the array has no slot; none read: last null', async () => {
    const standby = await smartReport(
      ports({ at: 'a', device: '/dev/sdb', reading: reading({ state: 'standby' }) }).ports,
      'sdb',
      5,
    );
    expect(standby.last?.findings).toEqual([]);
    const outside = await smartReport(ports(null, []).ports, 'sdb', 5);
    expect(outside).toMatchObject({ slot: null, last: null, serial: 'MSK423Y20S3HBC' });
  });

  it('an unknown disk is refused disk_not_found, naming the device', async () => {
    const err = await smartReport(ports(null).ports, 'sdq', 5).catch((e: unknown) => e);
    expect(isRefusal(err) && err.code).toBe('disk_not_found');
    expect(isRefusal(err) && err.details).toEqual({ device: '/dev/sdq' });
  });
});

describe('replaceWatcherSettings', () => {
  it('saves with the audit entry, then reschedules the loops', async () => {
    const order: string[] = [];
    const settings = structuredClone(DEFAULT_SETTINGS);
    settings.space.poolUsedPercent = 80;
    const saved = await replaceWatcherSettings(
      {
        save: async (s, audit) => {
          order.push(`save ${audit.operation} ${audit.target}`);
          expect(audit.details).toEqual(s);
          return s;
        },
        reschedule: () => order.push('reschedule'),
      },
      settings,
    );
    expect(saved.space.poolUsedPercent).toBe(80);
    expect(order).toEqual(['save settings.watchers_update settings/watchers', 'reschedule']);
  });

  it('stored settings: none or unreadable text gives the defaults, a partial row is completed', () => {
    expect(settingsFromJson(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(settingsFromJson('{not json')).toEqual(DEFAULT_SETTINGS);
    expect(settingsFromJson('{"space":{"poolUsedPercent":70}}').space.poolUsedPercent).toBe(70);
  });
});
