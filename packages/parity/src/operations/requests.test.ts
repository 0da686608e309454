import { type CommandRunner, isRefusal } from '@appliance/common';
import type { JobKind } from '@appliance/jobs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARITY_SETTINGS, type ParitySettings } from '../core/settings.ts';
import type { ParitySlot } from '../ports.ts';
import { MemoryParityStore } from '../test-support/index.ts';
import { paritySince, requestScrub, requestSync, saveParitySettings } from './requests.ts';

const parity: ParitySlot = { role: 'parity', roleIndex: 1, mountpoint: '/mnt/parity1', device: '/dev/sdd' };
const data: ParitySlot = { role: 'data', roleIndex: 1, mountpoint: '/mnt/disk1', device: '/dev/sdc' };

/** A runner on which exactly `installed` resolve (nothing is ever run). */
const runnerWith = (installed: string[]): CommandRunner => ({
  run: () => Promise.reject(new Error('nothing runs in these tests')),
  resolve: async (c) => (installed.includes(c) ? `/usr/bin/${c}` : null),
});

function setup(o: { slots?: ParitySlot[]; installed?: string[]; settings?: Partial<ParitySettings> } = {}) {
  const started: Array<{ type: string; params: unknown; options: unknown }> = [];
  const ports = {
    slots: { list: () => o.slots ?? [parity, data] },
    runner: runnerWith(o.installed ?? ['snapraid', 'setpriv']),
    store: new MemoryParityStore(o.settings),
    jobs: {
      start: async <P, R>(kind: JobKind<P, R>, params: P, options: unknown) => {
        started.push({ type: kind.type, params, options });
        return { view: { id: `job-${started.length}`, type: kind.type, params } as never };
      },
    },
  };
  return { ports, started };
}

async function codeOf(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  return isRefusal(err) ? { code: err.code, message: err.message } : err;
}

describe('sync and scrub on request', () => {
  it('refuse without a parity disk, naming what to do, and start nothing', async () => {
    const { ports, started } = setup({ slots: [data] });
    expect(await codeOf(requestSync(ports, 'admin', {}))).toEqual({
      code: 'no_array',
      message:
        'No array with a parity disk is set up: set one up first (POST /api/v1/disks/array), then its parity can be synced.',
    });
    expect(await codeOf(requestScrub(ports, 'admin', {}))).toEqual({
      code: 'no_array',
      message:
        'No array with a parity disk is set up: set one up first (POST /api/v1/disks/array), then it can be scrubbed once its parity has been synced.',
    });
    expect(started).toEqual([]);
  });

  it('refuse not_configured when snapraid is not installed', async () => {
    const { ports, started } = setup({ installed: ['setpriv'] });
    expect(await codeOf(requestSync(ports, 'admin', {}))).toMatchObject({ code: 'not_configured' });
    expect(started).toEqual([]);
  });

  it('start a guarded sync, or a forced one whose audit row says the guard was skipped', async () => {
    const { ports, started } = setup();
    await requestSync(ports, 'admin', {});
    await requestSync(ports, 'admin', { force: true });
    expect(started).toEqual([
      { type: 'parity.sync', params: { force: false }, options: { target: '/mnt/user', actor: 'admin' } },
      {
        type: 'parity.sync',
        params: { force: true },
        options: { target: '/mnt/user', actor: 'admin', audit: { guard: 'skipped (force)' } },
      },
    ]);
  });

  it('start a scrub whose unset values come from the settings', async () => {
    const { ports, started } = setup({ settings: { scrubPercent: 12, scrubOlderThanDays: 30 } });
    await requestScrub(ports, 'admin', {});
    await requestScrub(ports, 'admin', { percent: 100, olderThanDays: 0 });
    expect(started.map((s) => s.params)).toEqual([
      { percent: 12, olderThanDays: 30 },
      { percent: 100, olderThanDays: 0 },
    ]);
  });
});

describe('saveParitySettings', () => {
  it('writes the settings and one audit row naming the fields that changed', async () => {
    const store = new MemoryParityStore();
    const audit: unknown[] = [];
    const writes: string[] = [];
    const ports = {
      store,
      clock: { now: () => new Date('2026-03-01T10:00:00.000Z') },
      transaction: async <T>(fn: (tx: never) => T) =>
        fn({
          settings: () => store.settings(),
          write: (next: ParitySettings, at: string) => {
            store.values = next;
            writes.push(at);
          },
          audit: (actor: string | null, entry: unknown) => audit.push({ actor, entry }),
        } as never),
    };
    const next = { ...DEFAULT_PARITY_SETTINGS, syncTime: '04:30', deleteThreshold: 7 };
    expect(await saveParitySettings(ports, 'admin', next)).toEqual(next);
    expect(writes).toEqual(['2026-03-01T10:00:00.000Z']);
    expect(audit).toEqual([
      {
        actor: 'admin',
        entry: {
          operation: 'settings.parity',
          target: 'parity',
          details: { changed: { syncTime: '04:30', deleteThreshold: 7 } },
        },
      },
    ]);
  });
});

describe('paritySince', () => {
  it('counts from the array’s creation while it has a parity disk, else no schedule', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(paritySince({ list: () => [parity, data] }, at)).toEqual(new Date(at));
    expect(paritySince({ list: () => [data] }, at)).toBeNull();
    expect(paritySince({ list: () => [parity] }, null)).toBeNull();
  });
});
