/**
 * Issue 33 item 4, without the server: a loop-disk array set up by this package, files written on
 * a data disk, parity synced with snapraid, the disk destroyed (unmounted, wiped, detached), then
 * the `disk.replace` job run through @appliance/jobs' runner over the in-memory ports onto a new
 * loop disk: every file back with its SHA-256. (@appliance/api-server is nowhere in the imports.)
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { JobRunner } from '@appliance/jobs';
import { nodeTimers, procProcesses, systemClock } from '@appliance/jobs/node';
import { MemoryJobStore, MemoryLogger, RecordingEvents } from '@appliance/jobs/testing';
import { requirePrerequisites } from '@appliance/lab';
import { createSnapraid } from '@appliance/parity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planReplace } from '../core/replace-plan.ts';
import { checkReplaceRequest } from '../core/replace-request.ts';
import { isMountedAt } from '../node/pool-state.ts';
import { type LabArray, createLabArray } from '../test-support/array-lab.ts';
import { diskReplaceJob } from './definitions.ts';
import { registerDiskJobs, startDiskJob } from './handlers.ts';

const run = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every regular file under `dir` but SnapRAID's own content file (relative path → SHA-256). */
async function hashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const rel of (await fs.readdir(dir, { recursive: true })).sort()) {
    if (rel.startsWith('.snapraid.content')) continue;
    const file = path.join(dir, rel);
    if ((await fs.lstat(file)).isFile()) out.set(rel, sha256(await fs.readFile(file)));
  }
  return out;
}

describe('a destroyed data disk rebuilt by @appliance/array-planner alone (real snapraid on loop disks)', () => {
  let lab: LabArray;

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: [
        'losetup',
        'wipefs',
        'mkfs.xfs',
        'blkid',
        'mount',
        'umount',
        'findmnt',
        'snapraid',
        'setpriv',
        'chattr',
      ],
    });
    lab = await createLabArray({ dataDisks: 2 });
  }, 300_000);

  afterAll(async () => {
    await lab?.close();
  }, 120_000);

  it('the replace job puts every file of the destroyed disk back (SHA-256 compared)', async () => {
    const { paths, ports } = lab;
    const disk2 = paths.real('/mnt/disk2');
    // files of several sizes in nested directories, and one on the other data disk
    for (let i = 0; i < 24; i++) {
      const dir = path.join(disk2, `photos/${2020 + (i % 4)}`);
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, `img-${i}.raw`), randomBytes(1024 * (1 + i * 37)));
    }
    await fs.writeFile(path.join(disk2, 'notes.txt'), 'the list of things to keep\n');
    await fs.writeFile(path.join(paths.real('/mnt/disk1'), 'other.bin'), randomBytes(200_000));
    const before = await hashes(disk2);
    expect(before.size).toBe(25);

    // parity synced by snapraid itself
    const synced = await createSnapraid({ runner: lab.runner, configFile: paths.snapraidConf }).sync();
    expect([synced.run.exitCode, synced.run.errorLine]).toEqual([0, null]);

    // the disk dies: unmounted, its signature wiped, its first MiB zeroed, detached
    const slot = ports.slots.listSlots().find((s) => s.mountpoint === '/mnt/disk2')!;
    await run('umount', [disk2]);
    await run('wipefs', ['-a', slot.device]);
    await run('dd', ['if=/dev/zero', `of=${slot.device}`, 'bs=1M', 'count=1', 'oflag=direct', 'status=none']);
    await run('losetup', ['-d', slot.device]);
    expect(await fs.readdir(disk2)).toEqual([]);

    // the plan and the accepted request, as an operator sends them
    const fresh = await lab.addDisk(320);
    const input = {
      request: { mountpoint: '/mnt/disk2', device: fresh.device },
      rows: ports.slots.listSlots(),
      inventory: await ports.inventory.read(),
      externals: [],
    };
    const plan = planReplace(input);
    expect(plan.refusal).toBeUndefined();
    const checked = checkReplaceRequest({
      ...input,
      confirmation: `ERASE ${fresh.device}`,
      runningDiskJobId: null,
      strayEntries: [],
    });
    expect(checked.refusal).toBeUndefined();

    // the job, on @appliance/jobs' runner over in-memory stores
    const store = new MemoryJobStore();
    const runner = new JobRunner<string>({
      store,
      clock: systemClock,
      timers: nodeTimers,
      processes: procProcesses,
      events: new RecordingEvents(),
      logger: new MemoryLogger(),
      newId: randomUUID,
      actorName: (a) => a ?? 'system',
    });
    registerDiskJobs(runner, ports);
    const started = await startDiskJob(
      runner,
      { ...ports, newUuid: randomUUID },
      'tester',
      'replace_data',
      checked.plan!.plan,
    );
    expect(started.type).toBe('disk_replace_data');
    const job = await runner.wait(started.id);
    expect([job.type, job.state, job.error], JSON.stringify(job)).toEqual([
      diskReplaceJob.type,
      'succeeded',
      null,
    ]);
    expect(job.result).toMatchObject({
      kind: 'replace_data',
      mountpoint: '/mnt/disk2',
      device: fresh.device,
      restoredFiles: 25,
      unrecoverable: [],
      checked: { errors: 0 },
    });

    // the slot is on the new disk, recorded in the store; every file back, byte for byte
    expect(await isMountedAt(paths, '/mnt/disk2')).toBe(true);
    const row = ports.slots.listSlots().find((s) => s.mountpoint === '/mnt/disk2')!;
    expect(row.device).toBe(fresh.device);
    expect(ports.slots.switches).toHaveLength(1);
    expect(await hashes(disk2)).toEqual(before);
    expect(ports.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 600_000);
});
