/**
 * `@appliance/parity` alone, without the server: a loop-disk array (a parity disk and two data
 * disks, ext4, mounted here) synced by the package's sync job through a `JobRunner` of
 * `@appliance/jobs`, on in-memory stores. The first sync brings parity in sync (snapraid and the
 * package's status say so); a deletion above the guard's threshold is then blocked, parity kept;
 * a forced sync takes it; a data disk that is not mounted refuses the next sync (`array_degraded`).
 * The README's first example is this test.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandRunner } from '@appliance/common';
import { JobRunner } from '@appliance/jobs';
import { nodeTimers, procProcesses, systemClock } from '@appliance/jobs/node';
import { memoryPorts } from '@appliance/jobs/testing';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnapraid } from '../node/snapraid.ts';
import type { ParityJobDeps, ParitySlot } from '../ports.ts';
import {
  MemoryParityStore,
  mountedSlots,
  RecordingMetadata,
  RecordingParityEvents,
} from '../test-support/index.ts';
import { syncJob } from './kinds.ts';
import { parityStatus } from './status.ts';
import { syncImplementation } from './sync.ts';

const exec = promisify(execFile);
const MiB = 1024 * 1024;

let root: string;
const disks: LoopDisk[] = [];
const mounted: string[] = [];
const mnt = (name: string) => path.join(root, 'mnt', name);

async function mount(device: string, at: string) {
  await fs.mkdir(at, { recursive: true });
  await exec('mount', [device, at]);
  mounted.push(at);
}

let deps: ParityJobDeps;
let store: MemoryParityStore;
let events: RecordingParityEvents;
let metadata: RecordingMetadata;
let jobs: JobRunner<string>;

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['snapraid', 'setpriv', 'losetup', 'mkfs.ext4', 'mount'] });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'parity-sync-'));
  const slots: ParitySlot[] = [];
  for (const [role, roleIndex, name] of [
    ['parity', 1, 'parity1'],
    ['data', 1, 'disk1'],
    ['data', 2, 'disk2'],
  ] as const) {
    const disk = await createLoopDisk({ sizeBytes: 96 * MiB, imageDir: root, filesystem: 'ext4' });
    disks.push(disk);
    await mount(disk.device, mnt(name));
    slots.push({ role, roleIndex, mountpoint: mnt(name), device: disk.device });
  }
  // the array's snapraid.conf: parity on the parity disk, a content file on each disk and beside it
  const configFile = path.join(root, 'snapraid.conf');
  await fs.writeFile(
    configFile,
    [
      `parity ${mnt('parity1')}/snapraid.parity`,
      `content ${root}/snapraid.content`,
      `content ${mnt('disk1')}/.snapraid.content`,
      `content ${mnt('disk2')}/.snapraid.content`,
      `data d1 ${mnt('disk1')}/`,
      `data d2 ${mnt('disk2')}/`,
      'exclude /lost+found/',
      '',
    ].join('\n'),
  );
  for (let i = 0; i < 40; i++)
    await fs.writeFile(path.join(mnt(`disk${(i % 2) + 1}`), `photo-${i}.jpg`), `photo ${i}\n`.repeat(4000));

  store = new MemoryParityStore({ deleteThreshold: 10 });
  events = new RecordingParityEvents();
  metadata = new RecordingMetadata();
  deps = {
    runner: createCommandRunner(),
    configFile,
    clock: systemClock,
    log: console,
    slots: mountedSlots(slots),
    store,
    metadata,
    events,
  };
  // the job rows in memory; the clock, timers and processes of the host
  jobs = new JobRunner({
    ...memoryPorts(),
    clock: systemClock,
    timers: nodeTimers,
    processes: procProcesses,
  });
  jobs.register(syncJob, syncImplementation(deps));
}, 120_000);

afterAll(async () => {
  for (const at of mounted.reverse()) await exec('umount', [at]).catch(() => undefined);
  for (const disk of disks) await disk.destroy().catch(() => undefined);
  if (root) await fs.rm(root, { recursive: true, force: true });
});

const sync = async (force = false) =>
  await (await jobs.start(syncJob, { force }, { target: root, actor: 'admin' })).completed;

const status = () =>
  parityStatus({ slots: deps.slots, store, jobs, schedules: { view: () => null }, clock: systemClock });

describe('the parity sync job, without the server', () => {
  it('syncs the array: the job succeeds and snapraid and the status say in sync', async () => {
    expect(status().parity).toBe('never_synced');
    const job = await sync();
    expect([job.state, job.error]).toEqual(['succeeded', null]);
    expect(job.result).toMatchObject({
      changes: { added: 40, removed: 0 },
      reason: 'within_thresholds',
      forced: false,
    });
    expect(job.result && 'bytes' in job.result && job.result.bytes).toBeGreaterThan(0);
    expect(metadata.calls).toBe(1);
    expect((await fs.stat(path.join(mnt('parity1'), 'snapraid.parity'))).size).toBeGreaterThan(0);

    const snapraid = createSnapraid(deps);
    const { diff } = await snapraid.diff();
    expect(diff.changes).toBe(false);
    expect((await snapraid.status()).status).toMatchObject({ unsynced: false, filesCount: 40 });
    expect(status()).toMatchObject({ configured: true, parity: 'in_sync', blockedSince: null });
    expect(store.state().lastStatus).toMatchObject({ unsynced: false, filesCount: 40 });
    expect(events.raised.map((e) => e.eventType)).toEqual(['sync_succeeded']);
  });

  it('blocks a sync that would drop more files than the threshold, and keeps parity', async () => {
    const before = await fs.readFile(path.join(mnt('parity1'), 'snapraid.parity'));
    for (let i = 0; i < 24; i += 2) await fs.rm(path.join(mnt('disk1'), `photo-${i}.jpg`));
    const job = await sync();
    expect(job.state).toBe('blocked');
    expect(job.error?.code).toBe('sync_blocked_threshold');
    expect(job.result).toMatchObject({
      changes: { removed: 12 },
      crossed: [{ count: 'removed', value: 12, threshold: 10 }],
    });
    expect(job.result && 'removedPaths' in job.result && job.result.removedPaths).toContain('d1/photo-0.jpg');
    expect(await fs.readFile(path.join(mnt('parity1'), 'snapraid.parity'))).toEqual(before);
    expect(status()).toMatchObject({ parity: 'changes_pending', changes: { removed: 12 } });
    expect(status().blockedSince).not.toBeNull();
    expect(events.raised.at(-1)?.eventType).toBe('sync_blocked_threshold');

    const forced = await sync(true);
    expect(forced.state).toBe('succeeded');
    expect(forced.result).toMatchObject({ changes: { removed: 12 }, forced: true });
    expect(status()).toMatchObject({ parity: 'in_sync', blockedSince: null });
  });

  it('refuses to sync while a data disk is not mounted (array_degraded, reported once)', async () => {
    await exec('umount', [mnt('disk2')]);
    try {
      const job = await sync();
      expect(job.state).toBe('failed');
      expect(job.error?.code).toBe('array_degraded');
      expect(job.error?.message).toContain(`the data disk ${mnt('disk2')}`);
      expect(events.held.map((h) => [h.key, h.event.eventType])).toEqual([
        ['array:degraded', 'array_degraded'],
      ]);
    } finally {
      await exec('mount', [disks[2]!.device, mnt('disk2')]);
    }
    expect((await sync()).state).toBe('succeeded');
  });
});
