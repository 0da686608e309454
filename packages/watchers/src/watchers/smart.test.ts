/**
 * The smart watcher's fact gathering over its ports: the array's disks found in the inventory are
 * read (smartctl's real outputs from the fixtures), their last reading kept, the history written
 * only when something changed (or a day later); a disk that is gone is unobserved (its SMART
 * conditions kept), never read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CommandRunner, DiskInventoryEntry } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../core/settings.ts';
import { ManualClock } from '../test-support/index.ts';
import type { LastSmart, SmartHistory, SmartHistoryRow, WatchedSlot } from './ports.ts';
import { smartWatcher } from './smart.ts';

const fixture = (name: string) =>
  fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'fixtures', 'smartctl', name), 'utf8');

const slot = (n: number, serial: string): WatchedSlot => ({
  role: 'data',
  roleIndex: n,
  device: `/dev/sd${'bc'[n - 1]}`,
  fsUuid: `uuid-${n}`,
  wwn: null,
  serial,
  byIdName: `ata-Some_Disk_${serial}`,
  weakIdentity: false,
  sizeBytes: 1000,
  mountpoint: `/mnt/disk${n}`,
  removalState: null,
});
const entry = (device: string, serial: string, model: string): DiskInventoryEntry => ({
  device,
  sizeBytes: 1000,
  model,
  wwn: null,
  serial,
  byIdName: null,
  weakIdentity: false,
  filesystem: 'xfs',
  label: null,
  fsUuid: null,
  fsDevice: null,
  partitions: [],
  mountpoints: [],
  holders: [],
  inUse: true,
  probeFailed: false,
  boot: false,
  foreignStick: false,
});

function setup() {
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const answers = new Map<string, { stdout: string; exitCode: number }>();
  const asked: string[] = [];
  const runner: CommandRunner = {
    resolve: async (c) => `/usr/sbin/${c}`,
    async run(command, args) {
      const device = args.at(-1)!;
      asked.push(`${command} ${args.join(' ')}`);
      const a = answers.get(device) ?? { stdout: '', exitCode: 2 };
      return { command, args, exitCode: a.exitCode, stdout: a.stdout, stderr: '', timedOut: false };
    },
  };
  const rows: SmartHistoryRow[] = [];
  const history: SmartHistory = {
    latest: (diskKey) => rows.filter((r) => r.diskKey === diskKey).at(-1) ?? null,
    record: async (kept) => void rows.push(...kept),
  };
  const last = new Map<string, LastSmart>();
  let disks = [entry('/dev/sdb', 'MSK423Y20S3HBC', 'Hitachi HDS721050DLE630')];
  const watcher = smartWatcher({
    slots: () => [slot(1, 'MSK423Y20S3HBC'), slot(2, 'GONE1234')],
    settings: () => DEFAULT_SETTINGS,
    inventory: { read: async () => ({ labMode: false, bootResolved: true, disks }) },
    runner,
    clock,
    smartLast: last,
    smartHistory: history,
  });
  return {
    clock,
    answers,
    asked,
    rows,
    last,
    watcher,
    setDisks: (d: DiskInventoryEntry[]) => {
      disks = d;
    },
  };
}

describe('smartWatcher', () => {
  it('reads the present disks without waking them, keeps the last reading and the changed values', async () => {
    const t = setup();
    t.answers.set('/dev/sdb', { stdout: fixture('ata-failing-hitachi-hds721050dle630.json'), exitCode: 216 });
    const first = await t.watcher.observe([]);
    expect(t.asked).toEqual(['smartctl --json -a -n standby /dev/sdb']);
    expect(first.unobserved).toEqual(['smart:serial:GONE1234:']);
    expect(first.conditions.map((c) => c.eventType)).toContain('smart_failure');
    expect(first.conditions.every((c) => c.subject.startsWith('disk1 (/mnt/disk1'))).toBe(true);
    expect(t.last.get('serial:MSK423Y20S3HBC')).toMatchObject({
      at: '2026-06-01T00:00:00.000Z',
      device: '/dev/sdb',
    });
    expect(t.rows).toHaveLength(1);
    expect(t.rows[0]).toMatchObject({ diskKey: 'serial:MSK423Y20S3HBC', device: '/dev/sdb', passed: false });

    // the same values an hour later: not kept again; a day later: kept
    await t.clock.advance(3600_000);
    await t.watcher.observe([]);
    expect(t.rows).toHaveLength(1);
    await t.clock.advance(24 * 3600_000);
    await t.watcher.observe([]);
    expect(t.rows).toHaveLength(2);
  });

  it('a disk gone from the inventory is not read: its SMART conditions are unobserved', async () => {
    const t = setup();
    t.setDisks([]);
    const o = await t.watcher.observe([]);
    expect(t.asked).toEqual([]);
    expect(o).toMatchObject({
      conditions: [],
      unobserved: ['smart:serial:MSK423Y20S3HBC:', 'smart:serial:GONE1234:'],
    });
  });
});
