import os from 'node:os';
import { createHostPaths, isRefusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import type { ArraySetupPlan } from '../core/array-setup.ts';
import { inSlotOrder } from '../core/slots.ts';
import type { ArraySetupResult } from '../node/array-setup.ts';
import { inventory, world } from '../test-support/fixtures.ts';
import { MemoryArrayRecords, MemoryLog, MemorySlotStore } from '../test-support/memory.ts';
import {
  createArray,
  readMigration,
  recordArray,
  setMigrationPending,
  setRemovalState,
  showArray,
} from './array-records.ts';

const NOW = new Date('2026-03-01T10:00:00.000Z');

/** The acceptance world's rows in memory; `settings` false: no array row yet. */
function setup(o: { array?: boolean } = {}) {
  const w = world();
  const slots = new MemorySlotStore();
  const records = new MemoryArrayRecords<string>(slots);
  if (o.array !== false) {
    slots.rows = structuredClone(w.rows);
    records.row = {
      createPolicy: 'mfs',
      migrationPending: false,
      migrationPendingSince: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
  }
  let now = NOW;
  const holds: string[] = [];
  const ports = {
    // a root no disk is mounted under: every slot answers mounted: false
    paths: createHostPaths({ root: os.tmpdir() }),
    inventory: { read: async () => inventory(w.disks) },
    slots,
    records,
    log: new MemoryLog(),
    clock: { now: () => now },
    hold: (groups: readonly string[]) => {
      holds.push(...groups);
      return () => holds.splice(0);
    },
  };
  return { w, ports, slots, records, holds, later: (d: Date) => (now = d) };
}

async function refusalOf(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isRefusal(err)) throw new Error(`expected a refusal, got ${String(err)}`);
  return { code: err.code, message: err.message, details: err.details };
}

describe('showArray (08 §9.2)', () => {
  it('answers configured: false before the array is set up', async () => {
    const { ports } = setup({ array: false });
    expect(await showArray(ports)).toEqual({ configured: false, disks: [] });
  });

  it('shows each slot with the device its disk has now, whether mounted, and the migration flag', async () => {
    const { ports, records } = setup();
    records.row = { ...records.row!, migrationPending: true };
    const a = await showArray(ports);
    expect(a).toMatchObject({
      configured: true,
      createPolicy: 'mfs',
      poolMounted: false,
      migrationPending: true,
    });
    expect(a.disks.map((d) => [d.mountpoint, d.device, d.mounted])).toEqual([
      ['/mnt/parity1', '/dev/sdd', false],
      ['/mnt/disk1', '/dev/sdc', false],
      ['/mnt/disk2', '/dev/sdb', false],
    ]);
  });
});

describe('setRemovalState (08 §9.4)', () => {
  it('records the state of a data disk with its audit row and answers the slot', async () => {
    const { ports, records, slots } = setup();
    const slot = await setRemovalState(ports, 'admin', {
      mountpoint: '/mnt/disk2',
      removalState: 'evacuating',
    });
    expect(slot).toMatchObject({ mountpoint: '/mnt/disk2', removalState: 'evacuating', device: '/dev/sdb' });
    expect(slots.listSlots().find((s) => s.mountpoint === '/mnt/disk2')?.removalState).toBe('evacuating');
    expect(records.audit).toEqual([
      {
        actor: 'admin',
        operation: 'array.removal_state',
        target: '/mnt/disk2',
        details: { from: null, to: 'evacuating' },
      },
    ]);
  });

  it('refuses a mountpoint that is no slot, a parity disk, and a second disk leaving; nothing written', async () => {
    const { ports, records, slots } = setup();
    const before = structuredClone(slots.rows);
    expect(
      await refusalOf(
        setRemovalState(ports, 'admin', { mountpoint: '/mnt/disk9', removalState: 'evacuating' }),
      ),
    ).toEqual({
      code: 'disk_slot_not_found',
      message: 'no array disk at "/mnt/disk9"',
      details: { mountpoint: '/mnt/disk9' },
    });
    expect(
      await refusalOf(
        setRemovalState(ports, 'admin', { mountpoint: '/mnt/parity1', removalState: 'evacuating' }),
      ),
    ).toMatchObject({ code: 'not_a_data_disk', details: { mountpoint: '/mnt/parity1', role: 'parity' } });
    expect(slots.rows).toEqual(before);
    expect(records.audit).toEqual([]);

    await setRemovalState(ports, 'admin', { mountpoint: '/mnt/disk1', removalState: 'evacuated' });
    expect(
      await refusalOf(
        setRemovalState(ports, 'admin', { mountpoint: '/mnt/disk2', removalState: 'evacuating' }),
      ),
    ).toEqual({
      code: 'removal_in_progress',
      message: '/mnt/disk1 is already leaving the array (evacuated): finish or cancel that removal first.',
      details: { mountpoint: '/mnt/disk1', removalState: 'evacuated' },
    });
    // clearing another disk's state is not a second removal
    await expect(
      setRemovalState(ports, 'admin', { mountpoint: '/mnt/disk2', removalState: null }),
    ).resolves.toMatchObject({ removalState: null });
  });
});

describe('the migration flag (08 §10)', () => {
  it('needs an array to be pending; clearing without one answers not pending and writes nothing', async () => {
    const { ports, records } = setup({ array: false });
    expect(await refusalOf(setMigrationPending(ports, 'admin', true))).toMatchObject({ code: 'no_array' });
    expect(await setMigrationPending(ports, 'admin', false)).toEqual({ pending: false, since: null });
    expect(records.audit).toEqual([]);
    expect(readMigration(records.settings())).toEqual({ pending: false, since: null });
  });

  it('keeps the first since while pending, clears it after, and audits each change', async () => {
    const { ports, records, later } = setup();
    expect(await setMigrationPending(ports, 'admin', true)).toEqual({
      pending: true,
      since: NOW.toISOString(),
    });
    later(new Date('2026-03-02T10:00:00.000Z'));
    expect(await setMigrationPending(ports, 'admin', true)).toEqual({
      pending: true,
      since: NOW.toISOString(),
    });
    expect(readMigration(records.settings())).toEqual({ pending: true, since: NOW.toISOString() });
    expect(await setMigrationPending(ports, 'admin', false)).toEqual({ pending: false, since: null });
    expect(readMigration(records.settings())).toEqual({ pending: false, since: null });
    expect(records.audit.map((a) => a.details)).toEqual([
      { pending: true },
      { pending: true },
      { pending: false },
    ]);
  });
});

describe('array setup records (08 §9.3)', () => {
  const { w } = setup();
  const member = (role: 'parity' | 'data', roleIndex: number, device: string, mountpoint: string) => ({
    role,
    roleIndex,
    device,
    filesystem: 'xfs' as const,
    mountpoint,
    label: mountpoint.slice(5),
    fsUuid: `uuid-${device.slice(5)}`,
    entry: w.disks.find((d) => d.device === device)!,
  });
  const members = [
    member('parity', 1, '/dev/sdd', '/mnt/parity1'),
    member('data', 1, '/dev/sdz', '/mnt/disk1'),
  ];
  const setupOf = {
    plan: { members, createPolicy: 'lfs', confirmation: 'x' } as unknown as ArraySetupPlan,
    result: {
      members,
      poolMounted: true,
      snapraidConf: '',
      mounted: [],
      mountUnits: null,
    } as ArraySetupResult,
  };

  it('records the rows, the settings and one audit row naming the disks', async () => {
    const { ports, records, slots } = setup({ array: false });
    await recordArray(ports, 'admin', setupOf);
    expect(slots.listSlots().map((s) => [s.role, s.mountpoint, s.device])).toEqual([
      ['parity', '/mnt/parity1', '/dev/sdd'],
      ['data', '/mnt/disk1', '/dev/sdz'],
    ]);
    expect(records.settings()).toEqual({
      createPolicy: 'lfs',
      migrationPending: false,
      migrationPendingSince: null,
      createdAt: NOW.toISOString(),
    });
    expect(records.audit).toEqual([
      {
        actor: 'admin',
        operation: 'array.create',
        target: '/mnt/user',
        details: {
          createPolicy: 'lfs',
          disks: [
            { device: '/dev/sdd', role: 'parity', mountpoint: '/mnt/parity1', filesystem: 'xfs' },
            { device: '/dev/sdz', role: 'data', mountpoint: '/mnt/disk1', filesystem: 'xfs' },
          ],
          poolMounted: true,
          mountUnits: null,
        },
      },
    ]);
  });

  it('refuses array_exists when rows appeared meanwhile, writing nothing', async () => {
    const { ports, records, slots } = setup();
    const before = structuredClone(slots.rows);
    expect(await refusalOf(recordArray(ports, 'admin', setupOf))).toMatchObject({ code: 'array_exists' });
    expect(slots.rows).toEqual(before);
    expect(records.audit).toEqual([]);
  });

  it('createArray refuses an existing array before it holds the array group or touches a disk', async () => {
    const { ports, holds } = setup();
    const request = {
      disks: [{ device: '/dev/sdz', role: 'data' as const }],
      confirmation: 'ERASE /dev/sdz',
    };
    const full = {
      ...ports,
      runner: null as never,
      locks: null as never,
      generated: null as never,
      labMode: true,
    };
    expect(await refusalOf(createArray(full, 'admin', request))).toMatchObject({ code: 'array_exists' });
    expect(holds).toEqual([]);
  });
});

describe('inSlotOrder (08 §9.2)', () => {
  it('orders parity, data, cache, then by role index', () => {
    const { w } = setup();
    const [d1, d2, p1] = w.rows;
    const cache = { ...d1!, id: 99, role: 'cache' as const, roleIndex: 1, mountpoint: '/mnt/cache' };
    const p2 = { ...p1!, id: 98, roleIndex: 2, mountpoint: '/mnt/parity2' };
    expect(inSlotOrder([cache, d2!, p2, d1!, p1!]).map((s) => s.mountpoint)).toEqual([
      '/mnt/parity1',
      '/mnt/parity2',
      '/mnt/disk1',
      '/mnt/disk2',
      '/mnt/cache',
    ]);
  });
});
