/**
 * Disk jobs across a killed service (issue 21): a real `appliance-server` process in lab mode is
 * killed with SIGKILL in each phase of a data upgrade, a parity upgrade and a replace (the job
 * waits at a lab pause point, `<state>/lab-pause`, so each phase is hit exactly), and once in the
 * middle of a running copy. After each restart the job reads `interrupted` with what to do, the
 * slot is on exactly one disk, nothing is lost, and the same request is accepted again — the
 * next kill comes from that request, until a kill after the switch leaves the slot on its new disk.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { DISK_JOB_PHASES, type DiskJobKind } from '@appliance/array-planner';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, type ServerProcess, startServerProcess } from '../../../test-support/server-process.ts';
import { createLabArray, eventually, type LabArray, processesWith } from '../../../test-support/lab-array.ts';
import { loop } from '../../../test-support/disks/lab.ts';
import {
  differences,
  type Entry,
  snapshot,
  writeSpecials,
  writeTree,
} from '../../../test-support/disks/tree.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** Every phase up to the switch, and the switch's point before its row is written. */
const untilSwitch = (kind: DiskJobKind) => {
  const names = DISK_JOB_PHASES[kind].map((p) => p.name);
  return [...names.slice(0, names.indexOf('switch') + 1), 'switch:commit'];
};

describe('disk jobs across a killed service (SIGKILL in each phase)', () => {
  let lab: LabArray;
  let proc: ServerProcess | null = null;
  const extra: LoopDisk[] = [];
  let poolTree: Map<string, Entry>;
  const stateDir = () => lab.real('/var/lib/appliance');
  const pool = () => lab.real('/mnt/user');

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${proc!.url}/api/v1${p}`, {
      method,
      headers: {
        connection: 'close', // a kept-alive socket the server closed after 5 s idle would fail the next request
        authorization: `Bearer ${lab.s.token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text };
  };
  const start = async () => {
    proc = await startServerProcess({ root: lab.s.root, socket: path.join(lab.work, 'svc.sock') });
  };
  const job = async (id: string) => (await call('GET', `/jobs/${id}`)).body;
  const waitEnded = (id: string) =>
    eventually(async () => {
      const j = await job(id);
      return ['queued', 'running'].includes(j.state) ? undefined : j;
    }, 600_000);
  const pauseAt = async (point: string | null) => {
    await fs.rm(path.join(stateDir(), 'lab-paused'), { force: true });
    if (point === null) await fs.rm(path.join(stateDir(), 'lab-pause'), { force: true });
    else await fs.writeFile(path.join(stateDir(), 'lab-pause'), point);
  };
  const paused = (point: string) =>
    eventually(
      async () =>
        (await fs.readFile(path.join(stateDir(), 'lab-paused'), 'utf8').catch(() => '')) === point
          ? true
          : undefined,
      300_000,
    );
  const slots = async () =>
    (await call('GET', '/disks/array')).body.disks as Array<{
      role: string;
      roleIndex: number;
      mountpoint: string;
      device: string | null;
      fsUuid: string;
      mounted: boolean;
    }>;
  /** Mounts of these devices under the lab root, as `device → [logical targets]`. */
  const mountsOf = async (devices: string[]) => {
    const out: Record<string, string[]> = {};
    for (const d of devices) out[d] = [];
    const { stdout } = await run('findmnt', ['-rn', '-o', 'SOURCE,TARGET']);
    for (const line of stdout.split('\n')) {
      const [source, target] = line.split(' ');
      if (!source || !target?.startsWith(lab.s.root) || !(source in out)) continue;
      out[source]!.push(target.slice(lab.s.root.length).replace(/\\x20/g, ' '));
    }
    return out;
  };
  const options = async (logical: string) =>
    (await run('findmnt', ['-rn', '-o', 'OPTIONS', '--mountpoint', lab.real(logical)])).stdout.trim();

  /**
   * Starts the request with a pause at `point`, kills the service there, restarts it, and returns
   * the interrupted job once its recovery has run.
   */
  async function killAt(route: string, body: Record<string, unknown>, point: string) {
    await pauseAt(point);
    // the previous recovery may still hold the array group for a moment (409 job_running, job.recovery)
    const r = await eventually(async () => {
      const x = await call('POST', route, body);
      return x.status === 409 && x.body.details?.type === 'job.recovery' ? undefined : x;
    }, 60_000);
    expect(r.status, `${point}: ${r.text}`).toBe(202);
    await paused(point);
    await proc!.kill(); // the service and every process below it, as a kill of its cgroup
    await pauseAt(null);
    await start();
    const j = await eventually(async () => {
      const v = await job(r.body.jobId);
      return v.error?.message?.startsWith('The service stopped during the disk') ? v : undefined;
    }, 300_000);
    expect(j.state).toBe('interrupted');
    expect(j.error.code).toBe('interrupted');
    return j;
  }

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 420, dataSizeMiB: 320 });
    await writeTree(pool(), 120, 256 * 1024);
    await writeSpecials(lab.real('/mnt/disk1'));
    await writeSpecials(lab.real('/mnt/disk2'));
    const s = await lab.s.call('POST', '/disks/array/parity/sync', {});
    expect(s.status).toBe(202);
    await eventually(async () => {
      const j = (await lab.s.call('GET', `/jobs/${s.body.id}`)).body;
      return j.state === 'succeeded' ? true : undefined;
    }, 300_000);
    poolTree = await snapshot(pool());
    // the same root, served by a real `appliance-server` process in lab mode with the guard shims
    await fs.writeFile(
      path.join(lab.s.root, 'etc/appliance/config.toml'),
      `[lab]\nenabled = true\nimageDir = ${JSON.stringify(lab.imageDir)}\n\n[tools]\npath = ${JSON.stringify(`${path.join(lab.work, 'shims')}:/usr/sbin:/usr/bin:/sbin:/bin`)}\n`,
    );
    await lab.s.close({ keepRoot: true });
    await start();
  }, 600_000);

  afterAll(async () => {
    await killAll();
    await lab?.destroy();
    for (const d of extra) await d.destroy().catch(() => undefined);
  }, 120_000);

  it('data upgrade: killed in each phase, the slot stays on one disk; after the switch it is on the new one', async () => {
    const oldDisk = lab.disks.data[0]!;
    const spare = await loop(lab.imageDir, 360 * MiB);
    extra.push(spare);
    const body = { mountpoint: '/mnt/disk1', device: spare.device, confirmation: `ERASE ${spare.device}` };
    const disk1 = await snapshot(lab.real('/mnt/disk1'));

    for (const point of untilSwitch('upgrade_data')) {
      const j = await killAt('/disks/array/upgrade', body, point);
      expect(j.error.message, point).toContain(`/mnt/disk1 stays on its old disk ${oldDisk.device}`);
      expect(j.error.message).toContain('Send the same upgrade request again');
      expect(j.result).toMatchObject({ slotOn: 'old' });
      const slot = (await slots()).find((x) => x.mountpoint === '/mnt/disk1')!;
      expect(slot.device, point).toBe(oldDisk.device);
      expect(await mountsOf([oldDisk.device, spare.device]), point).toEqual({
        [oldDisk.device]: ['/mnt/disk1'],
        [spare.device]: [],
      });
      expect(await options('/mnt/disk1')).toMatch(/^rw,/);
      expect(differences(disk1, await snapshot(lab.real('/mnt/disk1'))), point).toEqual([]);
      expect(differences(poolTree, await snapshot(pool())), point).toEqual([]);
    }

    // a kill in the middle of the copy, rsync running: the service alone dies, rsync with it
    await fs.writeFile(
      path.join(lab.work, 'shims', 'rsync'),
      '#!/bin/sh\nexec /usr/bin/rsync --bwlimit=2000 "$@"\n',
      { mode: 0o755 },
    );
    const r = await call('POST', '/disks/array/upgrade', body);
    expect(r.status, r.text).toBe(202);
    await eventually(async () => {
      const j = await job(r.body.jobId);
      return j.phase === 'copy' && j.bytesDone > 0 ? true : undefined;
    }, 300_000);
    const staging = lab.real('/mnt/.staging/disk1');
    expect((await processesWith(staging)).length).toBeGreaterThan(0);
    process.kill(proc!.pid, 'SIGKILL'); // the service process only: rsync gets SIGKILL from setpriv --pdeathsig
    await eventually(() =>
      proc!.child.exitCode !== null || proc!.child.signalCode !== null ? true : undefined,
    );
    await eventually(async () => ((await processesWith(staging)).length === 0 ? true : undefined), 60_000);
    await fs.rm(path.join(lab.work, 'shims', 'rsync'));
    await start();
    const mid = await eventually(async () => {
      const v = await job(r.body.jobId);
      return v.error?.message?.includes('stays on its old disk') ? v : undefined;
    }, 300_000);
    expect(mid.error.message).toContain('(phase "copy")');
    expect(await mountsOf([oldDisk.device, spare.device])).toEqual({
      [oldDisk.device]: ['/mnt/disk1'],
      [spare.device]: [],
    });

    // killed once the switch is recorded: the slot is on the new disk, the old one unmounted
    const after = await killAt('/disks/array/upgrade', body, 'switch:recorded');
    expect(after.error.message).toContain(`Its switch had completed: /mnt/disk1 is on ${spare.device}`);
    expect(after.error.message).toContain('Run a parity sync');
    expect((await slots()).find((x) => x.mountpoint === '/mnt/disk1')!.device).toBe(spare.device);
    expect(await mountsOf([oldDisk.device, spare.device])).toEqual({
      [oldDisk.device]: [],
      [spare.device]: ['/mnt/disk1'],
    });
    expect(await options('/mnt/disk1')).toMatch(/^rw,/);
    expect(differences(disk1, await snapshot(lab.real('/mnt/disk1')))).toEqual([]);
    expect(differences(poolTree, await snapshot(pool()))).toEqual([]);
    // the same request is now refused: the new disk is the slot's own (R5 before R4, 03 §5 revised)
    const again = await call('POST', '/disks/array/upgrade', body);
    expect([again.status, again.body.code, again.body.details?.reason]).toEqual([
      400,
      'invalid_plan',
      'same_disk',
    ]);

    // back onto the old disk, killed in the sync after the switch: on the (old) new disk
    const back = {
      mountpoint: '/mnt/disk1',
      device: oldDisk.device,
      confirmation: `ERASE ${oldDisk.device}`,
    };
    const sync = await killAt('/disks/array/upgrade', back, 'sync');
    expect(sync.error.message).toContain(`/mnt/disk1 is on ${oldDisk.device}`);
    expect(await mountsOf([oldDisk.device, spare.device])).toEqual({
      [oldDisk.device]: ['/mnt/disk1'],
      [spare.device]: [],
    });
    expect(differences(poolTree, await snapshot(pool()))).toEqual([]);
  }, 3_600_000);

  it('parity upgrade: killed in each phase, the array keeps one parity disk', async () => {
    const oldParity = lab.disks.parity;
    const spare = await loop(lab.imageDir, 480 * MiB);
    extra.push(spare);
    const body = {
      mountpoint: '/mnt/parity1',
      device: spare.device,
      newMountpoint: '/mnt/parity2',
      confirmation: `ERASE ${spare.device}`,
    };
    const conf = () => fs.readFile(lab.real('/etc/appliance/snapraid.conf'), 'utf8');
    const confBefore = await conf();
    for (const point of untilSwitch('upgrade_parity')) {
      const j = await killAt('/disks/array/upgrade', body, point);
      expect(j.error.message, point).toContain(`/mnt/parity1 stays on its old disk ${oldParity.device}`);
      const parity = (await slots()).filter((x) => x.role === 'parity');
      expect(
        parity.map((x) => [x.mountpoint, x.device]),
        point,
      ).toEqual([['/mnt/parity1', oldParity.device]]);
      expect(await mountsOf([oldParity.device, spare.device]), point).toEqual({
        [oldParity.device]: ['/mnt/parity1'],
        [spare.device]: [],
      });
      expect(await conf(), point).toBe(confBefore);
    }
    const done = await killAt('/disks/array/upgrade', body, 'switch:recorded');
    expect(done.error.message).toContain(`Its switch had completed: /mnt/parity2 is on ${spare.device}`);
    expect(done.error.message).toContain('Nothing is left to do');
    expect((await slots()).filter((x) => x.role === 'parity').map((x) => [x.mountpoint, x.device])).toEqual([
      ['/mnt/parity2', spare.device],
    ]);
    expect(await mountsOf([oldParity.device, spare.device])).toEqual({
      [oldParity.device]: [],
      [spare.device]: ['/mnt/parity2'],
    });
    expect(await conf()).toContain(`parity ${lab.real('/mnt/parity2')}/snapraid.parity`);
    const check = await run('snapraid', ['-c', lab.real('/etc/appliance/snapraid.conf'), 'check'], {
      maxBuffer: 64 * MiB,
    });
    expect(check.stdout).toContain('Everything OK');
  }, 3_600_000);

  it('replace: killed in each phase, the slot records its failed disk until the switch, then the new one', async () => {
    const failed = lab.disks.data[1]!;
    const failedUuid = (await slots()).find((x) => x.mountpoint === '/mnt/disk2')!.fsUuid;
    const disk2 = await snapshot(lab.real('/mnt/disk2'), { withXattrs: true });
    await run('umount', [lab.real('/mnt/disk2')]);
    await run('wipefs', ['-a', failed.device]);
    await run('losetup', ['-d', failed.device]);
    const spare = await loop(lab.imageDir, 360 * MiB);
    extra.push(spare);
    const body = { mountpoint: '/mnt/disk2', device: spare.device, confirmation: `ERASE ${spare.device}` };
    for (const point of untilSwitch('replace_data')) {
      const j = await killAt('/disks/array/replace', body, point);
      expect(j.error.message, point).toContain(`/mnt/disk2 still records its failed disk ${failed.device}`);
      expect(j.error.message).toContain('Send the same replace request again');
      // the row still names the failed disk (its filesystem); it is not attached, so no device is shown
      expect(
        (await slots()).find((x) => x.mountpoint === '/mnt/disk2'),
        point,
      ).toMatchObject({
        fsUuid: failedUuid,
        device: null,
      });
      expect(await mountsOf([spare.device]), point).toEqual({ [spare.device]: [] });
      expect(await fs.readdir(lab.real('/mnt/disk2')), point).toEqual([]);
    }
    const done = await killAt('/disks/array/replace', body, 'switch:recorded');
    expect(done.error.message).toContain(`Its switch had completed: /mnt/disk2 is on ${spare.device}`);
    expect(await mountsOf([spare.device])).toEqual({ [spare.device]: ['/mnt/disk2'] });
    expect(
      differences(disk2, await snapshot(lab.real('/mnt/disk2'), { withXattrs: true }), { dirModes: true }),
    ).toEqual([]);
    expect(differences(poolTree, await snapshot(pool()))).toEqual([]);
    const s = await call('POST', '/disks/array/parity/sync', {});
    expect((await waitEnded(s.body.id)).state).toBe('succeeded');

    // once more, killed in the sync after the switch
    const second = await loop(lab.imageDir, 360 * MiB);
    extra.push(second);
    await run('umount', [lab.real('/mnt/disk2')]);
    await run('wipefs', ['-a', spare.device]);
    await run('losetup', ['-d', spare.device]);
    const sync = await killAt(
      '/disks/array/replace',
      { mountpoint: '/mnt/disk2', device: second.device, confirmation: `ERASE ${second.device}` },
      'sync',
    );
    expect(sync.error.message).toContain(`/mnt/disk2 is on ${second.device}`);
    expect(sync.error.message).toContain('Run a parity sync');
    expect(
      differences(disk2, await snapshot(lab.real('/mnt/disk2'), { withXattrs: true }), { dirModes: true }),
    ).toEqual([]);
    const s2 = await call('POST', '/disks/array/parity/sync', {});
    expect((await waitEnded(s2.body.id)).state).toBe('succeeded');
  }, 3_600_000);
});
