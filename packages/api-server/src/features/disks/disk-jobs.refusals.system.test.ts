/**
 * The disk jobs' refusals write nothing, and cancel is safe where it is allowed (issue 21), on a
 * real array (loop disks in lab mode, real snapraid and rsync): a wrong confirmation, a stale
 * plan, a busy disk, another job running, files in a failed disk's empty mountpoint — each proven
 * by the read-only fingerprint of 03 §10 (database, device write counters and first/last MiB,
 * `blkid -p`, mount table, the sandbox tree). Cancel during the copy leaves the slot on its old
 * disk; cancel during the switch is refused.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { diskLockKey } from '@appliance/common';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLabArray,
  eventually,
  type LabArray,
  processesWith,
  waitJob,
} from '../../../test-support/lab-array.ts';
import { fingerprint, loop, quiesce } from '../../../test-support/disks/lab.ts';
import { differences, type Entry, snapshot, writeTree } from '../../../test-support/disks/tree.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('disk job refusals write nothing; cancel where it is safe', () => {
  let lab: LabArray;
  let spare: LoopDisk;
  let small: LoopDisk;
  let disk1: Map<string, Entry>;
  const detached = new Set<string>();
  const devices = () =>
    [lab.disks.parity, ...lab.disks.data, spare, small].map((d) => d.device).filter((d) => !detached.has(d));
  const fp = () => fingerprint({ dump: () => lab.s.dumpDatabase(), devices: devices(), root: lab.s.root });
  const stateDir = () => lab.real('/var/lib/appliance');

  /** Runs `fn` and proves the fingerprint unchanged by it. */
  async function unchanged<T>(fn: () => Promise<T>): Promise<T> {
    await fingerprint({ dump: () => '', devices: [], root: lab.s.root });
    await quiesce(devices());
    const before = await fp();
    const result = await fn();
    expect(await fp()).toEqual(before);
    return result;
  }
  const post = (route: string, body: Record<string, unknown>) => lab.s.call('POST', route, body);
  const refused = async (route: string, body: Record<string, unknown>) =>
    (await unchanged(() => post(route, body))) as {
      status: number;
      body: { code: string; details?: Record<string, unknown>; message: string };
    };
  const pauseAt = async (point: string | null) => {
    await fs.rm(path.join(stateDir(), 'lab-paused'), { force: true });
    if (point === null) await fs.rm(path.join(stateDir(), 'lab-pause'), { force: true });
    else await fs.writeFile(path.join(stateDir(), 'lab-pause'), point);
  };
  const paused = (point: string) =>
    eventually(async () =>
      (await fs.readFile(path.join(stateDir(), 'lab-paused'), 'utf8').catch(() => '')) === point
        ? true
        : undefined,
    );

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 1024, dataSizeMiB: 512 });
    spare = await loop(lab.imageDir, 768 * MiB);
    small = await loop(lab.imageDir, 600 * MiB);
    await writeTree(lab.real('/mnt/user'), 200, 512 * 1024);
    const r = await post('/disks/array/parity/sync', {});
    expect((await waitJob(lab.s, r.body.id)).state).toBe('succeeded');
    disk1 = await snapshot(lab.real('/mnt/disk1'));
  }, 600_000);

  afterAll(async () => {
    await pauseAt(null).catch(() => undefined);
    await lab?.destroy();
    await spare?.destroy().catch(() => undefined);
    await small?.destroy().catch(() => undefined);
  }, 120_000);

  const upgrade1 = (o: Record<string, unknown> = {}) => ({
    mountpoint: '/mnt/disk1',
    device: spare.device,
    confirmation: `ERASE ${spare.device}`,
    ...o,
  });

  it('upgrade: wrong or missing confirmation, stale plan, a mounted or locked disk, another job', async () => {
    const wrong = await refused('/disks/array/upgrade', upgrade1({ confirmation: `erase ${spare.device}` }));
    expect([wrong.status, wrong.body.code, wrong.body.details?.['expected']]).toEqual([
      409,
      'confirmation_required',
      `ERASE ${spare.device}`,
    ]);
    const none = await refused('/disks/array/upgrade', upgrade1({ confirmation: undefined }));
    expect(none.body.code).toBe('confirmation_required');
    // a stale parity plan (the new mountpoint it named is not the fresh one) and a data plan with one
    const stale = await refused('/disks/array/upgrade', {
      mountpoint: '/mnt/parity1',
      device: spare.device,
      newMountpoint: '/mnt/parity3',
      confirmation: `ERASE ${spare.device}`,
    });
    expect([stale.status, stale.body.details?.['reason'], stale.body.details?.['expected']]).toEqual([
      400,
      'new_mountpoint_mismatch',
      '/mnt/parity2',
    ]);
    expect(
      (await refused('/disks/array/upgrade', upgrade1({ newMountpoint: '/mnt/parity2' }))).body.details?.[
        'reason'
      ],
    ).toBe('new_mountpoint_mismatch');
    // a data disk larger than the parity disk is refused (R10)
    const tooBig = await loop(lab.imageDir, 1100 * MiB);
    try {
      const r = await refused(
        '/disks/array/upgrade',
        upgrade1({ device: tooBig.device, confirmation: `ERASE ${tooBig.device}` }),
      );
      expect([r.status, r.body.details?.['reason']]).toEqual([400, 'exceeds_parity']);
      expect(r.body.message).toMatch(/upgrade parity first$/);
    } finally {
      await tooBig.destroy();
    }
    // a disk that is mounted (in use) is refused
    const at = path.join(lab.work, 'busy');
    await fs.mkdir(at, { recursive: true });
    await run('mkfs.xfs', ['-q', '-f', small.device]);
    await run('mount', [small.device, at]);
    try {
      const r = await refused(
        '/disks/array/upgrade',
        upgrade1({ device: small.device, confirmation: `ERASE ${small.device}` }),
      );
      expect([r.status, r.body.details?.['reason']]).toEqual([400, 'disk_mounted']);
    } finally {
      await run('umount', [at]);
    }
    // a disk another operation holds (an external disk format, for one): 409 disk_busy
    let release!: () => void;
    const held = lab.s.server.ctx.locks.tryRun(
      diskLockKey(spare.device),
      () => new Error('held') as never,
      () => new Promise<void>((r) => (release = r)),
    );
    try {
      const r = await refused('/disks/array/upgrade', upgrade1());
      expect([r.status, r.body.code]).toEqual([409, 'disk_busy']);
    } finally {
      release();
      await held;
    }
    // an array operation running (array setup holds the group): 409 job_running
    const free = lab.s.server.ctx.jobs.hold(['array'], { type: 'array.create', target: '/mnt/user' });
    try {
      const r = await refused('/disks/array/upgrade', upgrade1());
      expect([r.status, r.body.code, r.body.details?.['type']]).toEqual([409, 'job_running', 'array.create']);
    } finally {
      free();
    }
  }, 600_000);

  it('another disk job running: 409 disk_job_running; cancel in its cancellable phase keeps the old disk', async () => {
    await pauseAt('presync');
    const first = await post('/disks/array/upgrade', upgrade1());
    expect(first.status, first.text).toBe(202);
    await paused('presync');
    const r = await refused('/disks/array/upgrade', upgrade1());
    expect([r.status, r.body.code, r.body.details?.['jobId']]).toEqual([
      409,
      'disk_job_running',
      first.body.jobId,
    ]);
    const c = await lab.s.call('DELETE', `/jobs/${first.body.jobId}`);
    expect(c.status, c.text).toBe(202);
    const j = await waitJob(lab.s, first.body.jobId);
    expect(j.state).toBe('cancelled');
    expect(j.result).toMatchObject({ kept: 'old' });
    await pauseAt(null);
  }, 600_000);

  it('cancel during the copy (rsync running): the slot keeps its old disk, read-write; the switch refuses cancel', async () => {
    await fs.writeFile(
      path.join(lab.work, 'shims', 'rsync'),
      '#!/bin/sh\nexec /usr/bin/rsync --bwlimit=2000 "$@"\n',
      {
        mode: 0o755,
      },
    );
    const r = await post('/disks/array/upgrade', upgrade1());
    expect(r.status, r.text).toBe(202);
    const id = r.body.jobId as string;
    await eventually(async () => {
      const j = (await lab.s.call('GET', `/jobs/${id}`)).body;
      return j.phase === 'copy' && j.bytesDone > 0 ? true : undefined;
    }, 300_000);
    const c = await lab.s.call('DELETE', `/jobs/${id}`);
    expect(c.status, c.text).toBe(202);
    const j = await waitJob(lab.s, id);
    expect([j.state, j.result?.kept]).toEqual(['cancelled', 'old']);
    expect(await processesWith(lab.real('/mnt/.staging/disk1'))).toEqual([]);
    const slot = (await lab.s.call('GET', '/disks/array')).body.disks.find(
      (d: { mountpoint: string }) => d.mountpoint === '/mnt/disk1',
    );
    expect(slot.device).toBe(lab.disks.data[0]!.device);
    const opts = (
      await run('findmnt', ['-rn', '-o', 'SOURCE,OPTIONS', '--mountpoint', lab.real('/mnt/disk1')])
    ).stdout;
    expect(opts).toMatch(new RegExp(`^${lab.disks.data[0]!.device} rw,`));
    expect((await run('findmnt', ['-rn', '-S', spare.device]).catch(() => ({ stdout: '' }))).stdout).toBe('');
    expect(differences(disk1, await snapshot(lab.real('/mnt/disk1')))).toEqual([]);
    await fs.rm(path.join(lab.work, 'shims', 'rsync'));

    // the switch cannot be cancelled
    await pauseAt('switch');
    const again = await post('/disks/array/upgrade', upgrade1());
    expect(again.status, again.text).toBe(202);
    await paused('switch');
    const no = await lab.s.call('DELETE', `/jobs/${again.body.jobId}`);
    expect([no.status, no.body.code, no.body.details?.phase]).toEqual([409, 'job_not_cancellable', 'switch']);
    await pauseAt(null);
    const done = await waitJob(lab.s, again.body.jobId);
    expect([done.state, done.error], JSON.stringify(done)).toEqual(['succeeded', null]);
    expect(differences(disk1, await snapshot(lab.real('/mnt/disk1')))).toEqual([]);
  }, 900_000);

  it('replace: wrong confirmation, files in the empty mountpoint, another job, a stale plan (the disk is back)', async () => {
    const failed = lab.disks.data[1]!;
    await run('umount', [lab.real('/mnt/disk2')]);
    await run('losetup', ['-d', failed.device]);
    detached.add(failed.device);
    const body = { mountpoint: '/mnt/disk2', device: small.device, confirmation: `ERASE ${small.device}` };
    const plan = await post('/disks/array/replace/plan', { mountpoint: '/mnt/disk2', device: small.device });
    expect(plan.status, plan.text).toBe(200);
    const wrong = await refused('/disks/array/replace', {
      ...body,
      confirmation: plan.body.confirmation.toLowerCase(),
    });
    expect([wrong.status, wrong.body.code]).toEqual([409, 'confirmation_required']);
    // an upgrade's field is not part of a replace request
    const extra = await refused('/disks/array/replace', { ...body, newMountpoint: null });
    expect([extra.status, extra.body.code]).toEqual([400, 'bad_request']);
    // the empty mountpoint refuses writes (issue 32) …
    await expect(fs.writeFile(lab.real('/mnt/disk2/stray.txt'), 'x')).rejects.toMatchObject({
      code: 'EPERM',
    });
    // … but files an older version let the pool write there while the disk was missing are refused
    await run('chattr', ['-i', lab.real('/mnt/disk2')]);
    await fs.writeFile(lab.real('/mnt/disk2/stray.txt'), 'on the system disk');
    const stray = await refused('/disks/array/replace', body);
    expect([stray.status, stray.body.code, stray.body.details?.['entries']]).toEqual([
      409,
      'mountpoint_not_empty',
      ['stray.txt'],
    ]);
    await fs.rm(lab.real('/mnt/disk2/stray.txt'));

    // the same replace while one runs (held before its format): disk_job_running; no cancel
    // while it formats, then cancelled in its rebuild
    await pauseAt('format');
    const first = await post('/disks/array/replace', body);
    expect(first.status, first.text).toBe(202);
    await paused('format');
    const twice = await refused('/disks/array/replace', body);
    expect([twice.status, twice.body.code, twice.body.details?.['jobId']]).toEqual([
      409,
      'disk_job_running',
      first.body.jobId,
    ]);
    const no = await lab.s.call('DELETE', `/jobs/${first.body.jobId}`);
    expect([no.status, no.body.code]).toEqual([409, 'job_not_cancellable']);
    await pauseAt('rebuild');
    await paused('rebuild');
    expect((await lab.s.call('DELETE', `/jobs/${first.body.jobId}`)).status).toBe(202);
    const cancelled = await waitJob(lab.s, first.body.jobId);
    expect([cancelled.state, cancelled.result?.kept]).toEqual(['cancelled', 'old']);
    await pauseAt(null);
    expect(await fs.readdir(lab.real('/mnt/disk2'))).toEqual([]);
    expect((await run('findmnt', ['-rn', '-S', small.device]).catch(() => ({ stdout: '' }))).stdout).toBe('');

    // the failed disk comes back (a loose cable): the plan is stale, the replace refused
    const back = (await run('losetup', ['-f', '--show', failed.image])).stdout.trim();
    try {
      const present = await refused('/disks/array/replace', body);
      expect([present.status, present.body.code, present.body.details?.['device']]).toEqual([
        409,
        'slot_disk_present',
        back,
      ]);
    } finally {
      await run('losetup', ['-d', back]);
    }
  }, 600_000);
});
