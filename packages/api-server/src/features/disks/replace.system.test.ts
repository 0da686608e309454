/**
 * Issue 21 through the real server on a real array (loop disks in lab mode, xfs, mergerfs pool,
 * real snapraid, rsync and mkfs): a destroyed data disk rebuilt onto a new disk with every file
 * back (contents, mode, owner, mtime, hard link, symlink, xattr); the parity moved to a bigger disk
 * at /mnt/parity2; and a second destroyed disk rebuilt on the new parity.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { DISK_JOB_PHASES } from '@appliance/array-planner';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabArray, type LabArray, waitJob } from '../../../test-support/lab-array.ts';
import { loop } from '../../../test-support/disks/lab.ts';
import {
  differences,
  type Entry,
  followEvents,
  snapshot,
  writeSpecials,
  writeTree,
} from '../../../test-support/disks/tree.ts';

const run = promisify(execFile);
const KiB = 1024;
const MiB = 1024 * KiB;

describe('replace a failed disk, upgrade parity, replace again (real snapraid on loop disks)', () => {
  let lab: LabArray;
  const extra: LoopDisk[] = [];
  let events: Awaited<ReturnType<typeof followEvents>>;
  let poolTree: Map<string, Entry>;
  const pool = () => lab.real('/mnt/user');
  const conf = () => lab.s.server.ctx.paths.snapraidConf;
  const snapraid = (...args: string[]) =>
    run('snapraid', ['-c', conf(), ...args], { maxBuffer: 64 * MiB }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
  const sync = async () => {
    const r = await lab.s.call('POST', '/disks/array/parity/sync', {});
    expect(r.status, r.text).toBe(202);
    const j = await waitJob(lab.s, r.body.id);
    expect([j.state, j.error], JSON.stringify(j)).toEqual(['succeeded', null]);
    return j;
  };
  const slot = async (mountpoint: string) =>
    (await lab.s.call('GET', '/disks/array')).body.disks.find(
      (d: { mountpoint: string }) => d.mountpoint === mountpoint,
    );

  /** Unmount, wipe the signature, zero the first MiB, detach: the disk is gone. */
  async function destroy(disk: LoopDisk, mountpoint: string) {
    await run('umount', [lab.real(mountpoint)]);
    await run('wipefs', ['-a', disk.device]);
    await run('dd', ['if=/dev/zero', `of=${disk.device}`, 'bs=1M', 'count=1', 'oflag=direct', 'status=none']);
    await run('losetup', ['-d', disk.device]);
  }

  /** The replace as an operator runs it: the plan, then the request with its values and phrase. */
  async function replace(mountpoint: string, device: string) {
    const plan = await lab.s.call('POST', '/disks/array/replace/plan', { mountpoint, device });
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.confirmation).toBe(`ERASE ${device}`);
    const r = await lab.s.call('POST', '/disks/array/replace', {
      mountpoint,
      device: plan.body.replacementDevice,
      filesystem: plan.body.filesystem,
      confirmation: plan.body.confirmation,
    });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ type: 'disk_replace_data', status: 'queued' });
    expect(r.headers.get('location')).toBe(`/api/v1/jobs/${r.body.jobId}`);
    return { plan: plan.body, job: await waitJob(lab.s, r.body.jobId as string, 600_000) };
  }

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 3, paritySizeMiB: 1024, dataSizeMiB: 512 });
    events = await followEvents(lab.s.url, lab.s.token);
    // 996 files through the pool (spread over the three disks), 4 special ones on disk 2
    await writeTree(pool(), 996, 64 * KiB);
    await writeSpecials(lab.real('/mnt/disk2'));
    await sync();
    poolTree = await snapshot(pool());
    expect([...poolTree.values()].filter((e) => e.type !== 'dir')).toHaveLength(1000);
  }, 600_000);

  afterAll(async () => {
    events?.close();
    await lab?.destroy();
    for (const d of extra) await d.destroy().catch(() => undefined);
  }, 120_000);

  it('failed disk rebuilt: every file of disk 2 back with its SHA-256, mode, owner, mtime, link and xattr', async () => {
    const disk2 = await snapshot(lab.real('/mnt/disk2'), { withXattrs: true });
    const files = [...disk2.values()].filter((e) => e.type !== 'dir');
    expect(files.length).toBeGreaterThan(200); // the pool put a share of the tree there
    expect(disk2.get('special/inner dir/original.txt')?.linkOf).toBe('special/hardlink.txt');
    expect(disk2.get('special/inner dir/tagged.bin')?.xattrs).toEqual({ 'user.note': 'keep me' });

    await destroy(lab.disks.data[1]!, '/mnt/disk2');
    const blank = await loop(lab.imageDir, 768 * MiB); // a blank, larger disk
    extra.push(blank);
    const { plan, job } = await replace('/mnt/disk2', blank.device);
    expect(plan.rebuildCommand).toBe('snapraid fix -d d2');
    expect([job.state, job.error], JSON.stringify(job)).toEqual(['succeeded', null]);
    expect(job.result).toMatchObject({
      kind: 'replace_data',
      mountpoint: '/mnt/disk2',
      device: blank.device,
      restoredFiles: files.length,
      unrecoverable: [],
      permissions: { restored: true, missing: 0, errors: [] },
    });
    const order = DISK_JOB_PHASES.replace_data.map((x) => x.name);
    expect(job.result.phases.map((x: { phase: string }) => x.phase)).toEqual(order);

    // every entry of disk 2, with directory modes and owners too
    const rebuilt = await snapshot(lab.real('/mnt/disk2'), { withXattrs: true });
    expect(differences(disk2, rebuilt, { dirModes: true })).toEqual([]);
    // the pool lists the full tree again
    expect(differences(poolTree, await snapshot(pool()))).toEqual([]);
    // the slot records the new disk
    expect(await slot('/mnt/disk2')).toMatchObject({
      device: blank.device,
      mounted: true,
      sizeBytes: 768 * MiB,
    });

    // every phase on GET /events, the rebuild with percent and bytes
    const seen = events.progress(job.id);
    const phases = [...new Set(seen.flatMap((e) => (typeof e['phase'] === 'string' ? [e['phase']] : [])))];
    expect(phases).toEqual(order);
    expect(seen.at(-1)).toMatchObject({ done: true, state: 'succeeded' });

    // a following sync and a full check are clean
    await sync();
    const check = await snapraid('check');
    expect(check.code, check.out).toBe(0);
    expect(check.out).toContain('Everything OK');
  }, 900_000);

  it('parity upgrade to a bigger disk: rebuilt at /mnt/parity2, check clean, the old parity released', async () => {
    const bigger = await loop(lab.imageDir, 1200 * MiB);
    extra.push(bigger);
    const plan = await lab.s.call('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/parity1',
      device: bigger.device,
    });
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.newMountpoint).toBe('/mnt/parity2');
    const r = await lab.s.call('POST', '/disks/array/upgrade', {
      mountpoint: '/mnt/parity1',
      device: bigger.device,
      newMountpoint: plan.body.newMountpoint,
      confirmation: plan.body.confirmation,
    });
    expect(r.status, r.text).toBe(202);
    expect(r.body.type).toBe('disk_upgrade_parity');
    const job = await waitJob(lab.s, r.body.jobId, 600_000);
    expect([job.state, job.error], JSON.stringify(job)).toEqual(['succeeded', null]);
    expect(job.result).toMatchObject({
      mountpoint: '/mnt/parity2',
      device: bigger.device,
      previousDevice: lab.disks.parity.device,
    });
    const parity = await slot('/mnt/parity2');
    expect(parity).toMatchObject({ role: 'parity', roleIndex: 1, device: bigger.device, mounted: true });
    expect(await slot('/mnt/parity1')).toBeUndefined();
    const mounts = await fs.readFile('/proc/self/mountinfo', 'utf8');
    expect(mounts).not.toContain(`${lab.real('/mnt/parity1')} `);
    expect(await fs.readFile(conf(), 'utf8')).toContain(`parity ${lab.real('/mnt/parity2')}/snapraid.parity`);
    // the service recorded the snapraid.conf it wrote: the drift watcher sees no change by someone else
    expect(lab.s.server.ctx.generated.list().map((f) => f.path)).toContain('/etc/appliance/snapraid.conf');
    await lab.s.server.ctx.watchers.runOnce('drift');
    const health = (await lab.s.call('GET', '/health')).body;
    expect(
      health.conditions.filter((c: { eventType: string }) => c.eventType === 'config_drift_detected'),
    ).toEqual([]);
    const check = await snapraid('check');
    expect(check.code, check.out).toBe(0);
    // the old parity disk still holds its parity file, unchanged in size
    const old = path.join(lab.work, 'old-parity');
    await fs.mkdir(old);
    await run('mount', ['-o', 'ro', lab.disks.parity.device, old]);
    try {
      const [a, b] = await Promise.all([
        fs.stat(path.join(old, 'snapraid.parity')),
        fs.stat(lab.real('/mnt/parity2/snapraid.parity')),
      ]);
      expect(a.size).toBe(b.size);
    } finally {
      await run('umount', [old]);
    }
  }, 900_000);

  it('a second failed disk is rebuilt on the new parity', async () => {
    const disk3 = await snapshot(lab.real('/mnt/disk3'), { withXattrs: true });
    await destroy(lab.disks.data[2]!, '/mnt/disk3');
    const blank = await loop(lab.imageDir, 600 * MiB);
    extra.push(blank);
    const { job } = await replace('/mnt/disk3', blank.device);
    expect([job.state, job.error], JSON.stringify(job)).toEqual(['succeeded', null]);
    expect(
      differences(disk3, await snapshot(lab.real('/mnt/disk3'), { withXattrs: true }), { dirModes: true }),
    ).toEqual([]);
    expect(differences(poolTree, await snapshot(pool()))).toEqual([]);
    const check = await snapraid('check');
    expect(check.code, check.out).toBe(0);
  }, 900_000);
});
