/**
 * The appliance's watchers without the server: the space and disks watchers of this package on
 * real loop-disk filesystems (`@appliance/lab`), run by this package's loops, raising through the
 * raise-once conditions of `@appliance/jobs` kept in memory. Two data disks filled past the pool's
 * threshold raise `pool_above_threshold` (and each disk `disk_near_minfreespace`) once however many
 * cycles follow, and clear when the space is freed; a data disk unmounted under its slot raises
 * `disk_offline` and `array_degraded` once, cleared when it is mounted again. Nothing here imports
 * `@appliance/api-server` (the README's first example mirrors this test).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  createCommandRunner,
  createHostPaths,
  createInventoryReader,
  identityOf,
  systemClock,
} from '@appliance/common';
import { CollectingConditionEvents, Conditions, MemoryConditionStore } from '@appliance/jobs';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../core/settings.ts';
import { manualTimers, WatcherRunner } from '../runner.ts';
import { disksWatcher } from './disks.ts';
import type { WatchedSlot } from './ports.ts';
import { spaceWatcher } from './space.ts';

const run = promisify(execFile);
const MiB = 1024 ** 2;

describe('the space and disks watchers on loop disks, without the server', () => {
  let work: string;
  let root: string;
  const disks: LoopDisk[] = [];
  const mounted: string[] = [];
  let slots: WatchedSlot[] = [];
  let events: CollectingConditionEvents;
  let conditions: Conditions;
  let watchers: WatcherRunner;
  const logs: string[] = [];
  const logger = {
    info: (m: string) => void logs.push(`info ${m}`),
    warn: (m: string) => void logs.push(`warn ${m}`),
    error: (m: string, f?: Record<string, unknown>) => void logs.push(`error ${m} ${JSON.stringify(f)}`),
  };
  const paths = () => createHostPaths({ root });
  const raised = (eventType: string) => events.raised.filter((e) => e.eventType === eventType);
  const mount = async (device: string, target: string) => {
    await run('mount', [device, target]);
    mounted.push(target);
  };
  const umount = async (target: string) => {
    await run('umount', [target]);
    mounted.splice(mounted.indexOf(target), 1);
  };

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['losetup', 'mkfs.ext4', 'mount', 'umount', 'blkid', 'fallocate'],
    });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'watchers-system-'));
    root = path.join(work, 'root');
    const imageDir = path.join(work, 'images');
    for (let i = 0; i < 2; i++)
      disks.push(await createLoopDisk({ sizeBytes: 64 * MiB, filesystem: 'ext4', imageDir }));
    const runner = createCommandRunner();
    const inventory = createInventoryReader({ paths: paths(), runner, lab: { enabled: true, imageDir } });
    const found = (await inventory.read()).disks;
    slots = disks.map((d, i) => {
      const entry = found.find((e) => e.device === d.device);
      if (!entry?.fsUuid) throw new Error(`the inventory does not show ${d.device} with its filesystem`);
      return {
        role: 'data',
        roleIndex: i + 1,
        device: d.device,
        ...identityOf(entry),
        fsUuid: entry.fsUuid,
        byIdName: null,
        mountpoint: `/mnt/disk${i + 1}`,
        removalState: null,
      };
    });
    for (const s of slots) {
      await fs.mkdir(paths().real(s.mountpoint), { recursive: true });
      await mount(s.device, paths().real(s.mountpoint));
    }

    events = new CollectingConditionEvents();
    conditions = new Conditions({ store: new MemoryConditionStore(), events, clock: systemClock, logger });
    watchers = new WatcherRunner({ conditions, clock: systemClock, logger, timers: manualTimers });
    const settings = () => structuredClone(DEFAULT_SETTINGS);
    watchers.register(spaceWatcher({ slots: () => slots, settings, paths: paths() }));
    watchers.register(
      disksWatcher({ slots: () => slots, settings, paths: paths(), inventory, runner, logger }),
    );
  }, 120_000);

  afterAll(async () => {
    for (const t of [...mounted].reverse()) await run('umount', ['-l', t]).catch(() => undefined);
    for (const d of disks) await d.destroy();
    if (work) await fs.rm(work, { recursive: true, force: true });
  }, 120_000);

  it('a healthy array holds nothing', async () => {
    expect((await watchers.runOnce('space')).error).toBeNull();
    expect((await watchers.runOnce('disks')).error).toBeNull();
    expect(conditions.holding()).toEqual([]);
    expect(events.raised).toEqual([]);
  });

  it('disks filled past the threshold raise pool_above_threshold once, cleared when freed', async () => {
    const fills: string[] = [];
    for (const s of slots) {
      const dir = paths().real(s.mountpoint);
      const st = await fs.statfs(dir);
      const file = path.join(dir, 'fill.bin');
      // leave 2 MiB free on each: the pool (their sum) above 90 %, each disk below its minfreespace
      await run('fallocate', ['-l', String(st.bavail * st.bsize - 2 * MiB), file]);
      fills.push(file);
    }
    for (let i = 0; i < 20; i++) expect((await watchers.runOnce('space')).error).toBeNull();
    expect(raised('pool_above_threshold')).toHaveLength(1);
    expect(raised('pool_above_threshold')[0]!.message).toMatch(
      /^The pool \/mnt\/user is 9\d(\.\d)? % full \(threshold 90 %\)/,
    );
    expect(raised('disk_near_minfreespace').map((e) => e.title)).toHaveLength(2);
    expect(
      conditions
        .holding()
        .map((c) => [c.key, c.source])
        .sort(),
    ).toEqual([
      ['space:disk:/mnt/disk1', 'space'],
      ['space:disk:/mnt/disk2', 'space'],
      ['space:pool', 'space'],
    ]);

    for (const f of fills) await fs.rm(f);
    await watchers.runOnce('space');
    expect(conditions.holding()).toEqual([]);
    expect(events.raised).toHaveLength(3);
  });

  it('a data disk unmounted under its slot raises disk_offline and array_degraded once, cleared when it is back', async () => {
    const disk2 = slots[1]!;
    const target = paths().real(disk2.mountpoint);
    await umount(target);
    for (let i = 0; i < 10; i++) await watchers.runOnce('disks');
    expect(raised('disk_offline')).toEqual([
      expect.objectContaining({ title: 'Array disk disk2 is offline (not mounted)' }),
    ]);
    expect(raised('disk_offline')[0]!.message).toContain(
      `connected as ${disk2.device} but nothing is mounted at /mnt/disk2`,
    );
    expect(raised('array_degraded')).toHaveLength(1);
    expect(conditions.holding().map((c) => c.key)).toEqual(['disk:/mnt/disk2', 'array:degraded']);
    // the space watcher measures no unmounted disk (statfs there would be the root filesystem's)
    expect((await watchers.runOnce('space')).error).toBeNull();
    expect(events.raised).toHaveLength(5);

    await mount(disk2.device, target);
    await watchers.runOnce('disks');
    expect(conditions.holding()).toEqual([]);
    expect(raised('disk_offline')).toHaveLength(1);
    expect(watchers.status().map((s) => [s.name, s.error])).toEqual([
      ['space', null],
      ['disks', null],
    ]);
  });
});
