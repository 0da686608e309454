/**
 * A service killed outright (SIGKILL of its process alone, as an OOM kill does) during a parity
 * sync: snapraid stops with it (setpriv --pdeathsig), the restarted service reads the job as
 * `interrupted`, no snapraid is left behind, and a new sync succeeds. And a snapraid that did
 * survive (recorded as the running job's process) is stopped by the restarted service before any
 * new array job may start.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, type ServerProcess, startServerProcess } from '../../../test-support/server-process.ts';
import {
  createLabArray,
  eventually,
  type LabArray,
  processesWith,
  writeFiles,
} from '../../../test-support/lab-array.ts';

const MiB = 1024 * 1024;

describe('parity jobs across a killed service', () => {
  let lab: LabArray;
  let proc: ServerProcess | null = null;
  let token: string;
  let conf: string;
  const socket = () => path.join(lab.work, 'svc.sock');

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${proc!.url}/api/v1${p}`, {
      method,
      headers: {
        connection: 'close',
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const start = async () => {
    proc = await startServerProcess({ root: lab.s.root, socket: socket() });
  };
  const job = async (id: string) => (await call('GET', `/jobs/${id}`)).body;
  const waitEnded = (id: string) =>
    eventually(async () => {
      const j = await job(id);
      return ['queued', 'running'].includes(j.state) ? undefined : j;
    }, 300_000);

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 1200, dataSizeMiB: 1024 });
    token = lab.s.token;
    conf = lab.s.server.ctx.paths.snapraidConf;
    await writeFiles(lab.real('/mnt/user'), 16, () => 40 * MiB, 'big');
    // the same root, served by a real `appliance serve` process in lab mode
    await fs.writeFile(
      path.join(lab.s.root, 'etc/appliance/config.toml'),
      `[lab]\nenabled = true\nimageDir = ${JSON.stringify(lab.imageDir)}\n`,
    );
    await lab.s.close({ keepRoot: true });
    await start();
  }, 300_000);

  afterAll(async () => {
    await killAll();
    for (const pid of await processesWith(conf ?? 'none')) process.kill(pid, 'SIGKILL');
    await lab?.destroy();
  }, 120_000);

  it('SIGKILL during a sync: interrupted after restart, no snapraid left, a new sync succeeds', async () => {
    const r = await call('POST', '/disks/array/parity/sync', {});
    expect(r.status).toBe(202);
    const id = r.body.id as string;
    await eventually(async () => ((await job(id)).phase === 'sync' ? true : undefined));
    await eventually(async () => ((await processesWith(conf)).length > 0 ? true : undefined));
    process.kill(proc!.pid, 'SIGKILL'); // the service alone, not its process group
    await eventually(() =>
      proc!.child.exitCode !== null || proc!.child.signalCode !== null ? true : undefined,
    );
    // snapraid gets SIGINT from the kernel when its parent dies, saves its state and exits
    await eventually(async () => ((await processesWith(conf)).length === 0 ? true : undefined), 120_000);

    await start();
    const after = await job(id);
    expect(after.state).toBe('interrupted');
    expect(after.error.code).toBe('interrupted');
    expect(after.error.message).toMatch(/phase "sync"/);
    expect(await processesWith(conf)).toEqual([]);
    const again = await call('POST', '/disks/array/parity/sync', {});
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect((await waitEnded(again.body.id)).state).toBe('succeeded');
  }, 600_000);

  it('a snapraid that outlived its service is stopped by the restarted one before the next array job', async () => {
    await writeFiles(lab.real('/mnt/user'), 8, () => 40 * MiB, 'late');
    await proc!.stop();
    // a sync left running by a service that died without the kernel's help (recorded as its job):
    // it stays until it gets SIGINT, then takes two more seconds to exit, as a big array does
    const leftover = spawn(
      'sh',
      [
        '-c',
        'trap "sleep 2; exit 0" INT; snapraid -c "$1" sync; while :; do sleep 1; done',
        'leftover',
        conf,
      ],
      { detached: true, stdio: 'ignore' },
    );
    await eventually(async () => ((await processesWith(conf)).length > 0 ? true : undefined));
    const now = new Date().toISOString();
    const conn = new Database(path.join(lab.s.root, 'var/lib/appliance/state.db'));
    conn
      .prepare(
        `insert into jobs (id, type, target, state, phase, cancellable, trigger, actor, params, output, pid, created_at, started_at)
         values (?, 'parity.sync', '/mnt/user', 'running', 'sync', 1, 'request', 'admin', '{"force":false}', '[]', ?, ?, ?)`,
      )
      .run('00000000-0000-4000-8000-00000000dead', leftover.pid, now, now);
    conn.close();
    await start();
    expect((await job('00000000-0000-4000-8000-00000000dead')).state).toBe('interrupted');
    // while the leftover stops, an array job is refused, naming the recovery
    const busy = await call('POST', '/disks/array/parity/sync', {});
    expect(
      [busy.status, busy.body.code, busy.body.details?.type],
      `${JSON.stringify(busy.body)} ${proc!.output().slice(-3000)}`,
    ).toEqual([409, 'job_running', 'job.recovery']);
    await eventually(async () => ((await processesWith(conf)).length === 0 ? true : undefined), 180_000);
    const again = await eventually(async () => {
      const r = await call('POST', '/disks/array/parity/sync', {});
      return r.status === 202 ? r : undefined;
    }, 180_000);
    expect((await waitEnded(again.body.id)).state).toBe('succeeded');
  }, 600_000);
});
