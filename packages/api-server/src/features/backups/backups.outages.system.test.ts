/**
 * Backups when something goes wrong around them (issue 32, items 5–7), through the real server: an
 * array on loop disks (lab mode), a formatted loop backup disk, real restic, a stack on a private
 * dockerd whose health check always fails, events delivered to a real webhook receiver.
 *
 * - A stack that is unhealthy before a backup stops it and after it starts again is one condition:
 *   one `container_unhealthy`, whatever the watcher sees while the backup holds it stopped.
 * - A backup disk the user mounted that stops answering (xfs shut down under it) during a run: the
 *   dead mount is taken off as when the job mounted it, the failure names the disk (no `internal`,
 *   no doubled period), and the next run mounts the disk again and succeeds. The same for a disk
 *   that died while mounted by hand outside any job.
 * - On a new box after a configuration restore, a drill reads the repository's snapshots (made by
 *   the old box) instead of answering `409 no_snapshots`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { importBody } from '@appliance/archive-preview/test-support';
import { erasePhrase } from '@appliance/common';
import {
  createLoopDisk,
  type LoopDisk,
  type PrivateDockerd,
  requirePrerequisites,
  startPrivateDockerd,
} from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventReceiver } from '../../../test-support/event-receiver.ts';
import {
  createLabArray,
  eventually,
  type LabArray,
  waitJob,
  writeFiles,
} from '../../../test-support/lab-array.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { rawRequest } from '../../../test-support/config-archive.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const PASSPHRASE = 'backup passphrase of the old box';
const LABEL = 'bk';
const EVENTS = [
  'config_backup_failed',
  'appdata_backup_failed',
  'restore_drill_failed',
  'container_unhealthy',
];

describe('backups and outages: an unhealthy stack, a dead disk, a new box', () => {
  let lab: LabArray;
  let dockerd: PrivateDockerd;
  let hooks: Awaited<ReturnType<typeof startEventReceiver>>;
  let backupDisk: LoopDisk;
  let fresh: Sandbox | null = null;
  const previousDockerHost = process.env['DOCKER_HOST'];
  const s = () => lab.s;
  const share = () => lab.real('/mnt/user/media');
  const mountpoint = () => lab.real(`/mnt/disks/${LABEL}`);
  const ok = (r: { status: number; text: string }, status: number) => expect(r.status, r.text).toBe(status);
  const mountedAt = async (dir: string) =>
    (await fs.readFile('/proc/self/mountinfo', 'utf8')).split('\n').some((l) => l.split(' ')[4] === dir);
  const listed = async () =>
    (await s().call('GET', '/disks/external')).body.disks.find((d: { label: string }) => d.label === LABEL);
  const alerts = (eventType: string) =>
    s()
      .server.ctx.sqlite.prepare('select title, message from notify_alerts where event_type = ? order by id')
      .all(eventType) as { title: string; message: string }[];

  const stackDir = () => path.join(s().root, 'var/lib/appliance/stacks/sick');
  const compose = (...args: string[]) =>
    run(
      'docker-compose',
      [
        '--project-name',
        'sick',
        '--project-directory',
        stackDir(),
        '--file',
        path.join(stackDir(), 'docker-compose.yml'),
        '--env-file',
        path.join(stackDir(), '.env'),
        ...args,
      ],
      { env: { ...process.env, DOCKER_HOST: dockerd.host } },
    );
  /** `{{.State.Health.Status}}` (or another field, `{{.State.Status}}`) of the stack's container. */
  const stateOf = async (what = '{{.State.Health.Status}}') => {
    const id = (
      await dockerd.docker(['ps', '-aq', '--filter', 'label=com.docker.compose.project=sick'])
    ).stdout.trim();
    return id ? (await dockerd.docker(['inspect', '-f', what, id])).stdout.trim() : 'none';
  };
  const healthOf = () => stateOf();
  const waitHealth = (want: string) =>
    eventually(async () => ((await healthOf()) === want ? true : undefined), 60_000);

  async function runPlan(box: Sandbox = s()) {
    const r = await box.call('POST', '/backups/plans/p2/run', undefined, { via: 'unix' });
    ok(r, 202);
    return waitJob(box, r.body.id, 600_000);
  }

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['restic', 'dockerd', 'docker', 'docker-compose', 'xfs_io', 'losetup'],
    });
    dockerd = await startPrivateDockerd();
    process.env['DOCKER_HOST'] = dockerd.host;
    lab = await createLabArray({ dataDisks: 1, paritySizeMiB: 700, dataSizeMiB: 600 });
    hooks = await startEventReceiver();
    const ch = await s().call('POST', '/notifications/channels', {
      name: 'ops',
      type: 'webhook',
      enabled: true,
      webhookUrl: hooks.url,
    });
    ok(ch, 201);
    for (const e of EVENTS)
      ok(
        await s().call('PUT', `/notifications/routing/${e}`, { severity: 'error', channelIds: [ch.body.id] }),
        200,
      );
    ok(
      await s().call('PUT', '/settings', {
        hostname: 'old-box',
        timezone: 'UTC',
        backupPassphrase: PASSPHRASE,
      }),
      200,
    );
    backupDisk = await createLoopDisk({ sizeBytes: 1024 * MiB, imageDir: lab.imageDir });
    ok(
      await s().call('POST', '/disks/external', {
        device: backupDisk.device,
        label: LABEL,
        backupDestination: true,
      }),
      201,
    );
    ok(
      await s().call('POST', `/disks/external/${LABEL}/format`, {
        confirmation: erasePhrase([backupDisk.device]),
      }),
      200,
    );
    ok(await s().call('POST', '/shares', { name: 'media' }), 201);
    await writeFiles(share(), 40, (i) => 50_000 + i * 1013);
    // a stack whose health check always fails, with app data below /mnt/cache
    await fs.mkdir(lab.real('/mnt/cache/appdata/sick'), { recursive: true });
    await fs.writeFile(lab.real('/mnt/cache/appdata/sick/settings.conf'), 'broken = yes\n');
    ok(
      await s().call('POST', '/stacks', {
        name: 'sick',
        compose: `services:
  app:
    image: ${dockerd.busyboxImage}
    command: ["sleep", "3600"]
    network_mode: none
    volumes:
      - \${APPDATA}/sick:/data
    healthcheck:
      test: ["CMD", "false"]
      interval: 1s
      timeout: 2s
      retries: 1
`,
        env: { APPDATA: lab.real('/mnt/cache/appdata') },
      }),
      201,
    );
    await compose('up', '-d');
    ok(
      await s().call('POST', '/backups/plans', {
        name: 'p2',
        destination: LABEL,
        configuration: true,
        stacks: [{ name: 'sick' }],
        shares: ['media'],
        schedule: { kind: 'daily', time: '03:30' },
      }),
      201,
    );
  }, 600_000);

  afterAll(async () => {
    await fresh?.close().catch(() => undefined);
    if (lab && dockerd) await compose('down', '-t', '1').catch(() => undefined);
    await lab?.destroy();
    await backupDisk?.destroy().catch(() => undefined);
    await dockerd?.stop();
    await hooks?.close();
    if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = previousDockerHost;
  }, 300_000);

  it('an unhealthy stack the backup stops and starts again: one container_unhealthy, the same condition throughout', async () => {
    await waitHealth('unhealthy');
    const ctx = s().server.ctx;
    expect((await ctx.watchers.runOnce('containers')).error).toBeNull();
    expect(alerts('container_unhealthy')).toHaveLength(1);
    const before = (await s().call('GET', '/health')).body.conditions.find(
      (c: { key: string }) => c.key === 'container:sick/app',
    );
    expect(before).toBeDefined();
    // the watcher runs right after the backup stopped the stack, and right after it started it again
    const runner = lab.runner;
    const original = runner.run;
    const seen: string[] = [];
    runner.run = async (command, args, options) => {
      const r = await original.call(runner, command, args, options);
      const verb = args.at(-1);
      if (args.includes('--project-name') && args.includes('sick') && (verb === 'stop' || verb === 'start')) {
        seen.push(`${verb}: ${await stateOf('{{.State.Status}}')}`);
        expect((await ctx.watchers.runOnce('containers')).error).toBeNull();
      }
      return r;
    };
    let job: Awaited<ReturnType<typeof runPlan>>;
    try {
      job = await runPlan();
    } finally {
      runner.run = original;
    }
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    // the watcher saw the container stopped, then running again
    expect(seen).toEqual(['stop: exited', 'start: running']);
    // started again: `starting` until the first check, then unhealthy again
    await ctx.watchers.runOnce('containers');
    await waitHealth('unhealthy');
    await ctx.watchers.runOnce('containers');
    expect(alerts('container_unhealthy')).toHaveLength(1);
    const after = (await s().call('GET', '/health')).body.conditions.find(
      (c: { key: string }) => c.key === 'container:sick/app',
    );
    expect(after).toMatchObject({ since: before.since, value: 'unhealthy' });
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.of('container_unhealthy')).toHaveLength(1);
  }, 600_000);

  it('a disk the user mounted stops answering during a run: the dead mount is taken off, the failure names the disk, the next run succeeds', async () => {
    ok(await s().call('POST', `/disks/external/${LABEL}/mount`), 200);
    expect((await listed()).mounted).toBe(true);
    await writeFiles(share(), 10, () => 16 * MiB, 'bulk');
    const start = await s().call('POST', '/backups/plans/p2/run');
    ok(start, 202);
    const id = start.body.id as string;
    await eventually(async () => {
      const j = (await s().call('GET', `/jobs/${id}`)).body;
      if (j.state !== 'running') throw new Error(`the run ended before the disk died: ${JSON.stringify(j)}`);
      return String(j.phase).startsWith('share media') && (j.bytesDone ?? 0) > 8 * MiB ? true : undefined;
    }, 300_000);
    await run('xfs_io', ['-x', '-c', 'shutdown', mountpoint()]);
    const job = await waitJob(s(), id, 120_000);
    expect(job.state).toBe('failed');
    expect(job.error.code).toBe('backup_failed');
    expect(job.error.message).toMatch(
      /share media \(.*"bk".*\)|share media \(.*(input\/output|I\/O) error.*\)/i,
    );
    // the dead mount did not stay, although the user had mounted the disk
    expect(await mountedAt(mountpoint())).toBe(false);
    expect((await listed()).mounted).toBe(false);
    const hook = await eventually(() => hooks.of('appdata_backup_failed')[0], 30_000);
    expect(hook.message).toContain('p2');
    expect(hook.message).not.toMatch(/\.\./);
    // the disk answers again once mounted afresh (xfs replays its log): the next run mounts it
    const next = await runPlan();
    expect(next.state, JSON.stringify(next.error)).toBe('succeeded');
    expect(await mountedAt(mountpoint())).toBe(false); // mounted by the job, unmounted after
  }, 900_000);

  it('a disk that died while mounted by hand, outside any job: the next run takes the dead mount off, mounts it again and succeeds', async () => {
    ok(await s().call('POST', `/disks/external/${LABEL}/mount`), 200);
    await run('xfs_io', ['-x', '-c', 'shutdown', mountpoint()]);
    await expect(fs.mkdir(path.join(mountpoint(), 'probe'))).rejects.toThrow(/EIO|input\/output/i);
    const failedBefore = hooks.of('appdata_backup_failed').length + hooks.of('config_backup_failed').length;
    const job = await runPlan();
    expect(job.error?.code).not.toBe('internal');
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(await mountedAt(mountpoint())).toBe(false);
    expect(hooks.of('appdata_backup_failed').length + hooks.of('config_backup_failed').length).toBe(
      failedBefore,
    );
  }, 900_000);

  it('after a configuration restore on a new box, a drill reads the snapshots the old box made', async () => {
    ok(await s().call('POST', `/disks/external/${LABEL}/mount`), 200);
    const archive = await fs.readFile(
      path.join(mountpoint(), 'appliance-backups/p2/appliance-config-latest.tar.zst'),
    );
    ok(await s().call('POST', `/disks/external/${LABEL}/eject`), 200);
    fresh = await startSandbox({
      lab: true,
      config: { lab: { enabled: true, imageDir: lab.imageDir } },
      start: { runner: lab.runner },
    });
    const b = fresh;
    const imp = importBody(archive, {
      confirmation: 'RESTORE old-box',
      passphrase: PASSPHRASE,
      diskMapping: { disks: [] },
    });
    const r = await rawRequest({ socket: b.socket }, 'POST', '/config/import', imp.body, {
      'content-type': imp.contentType,
    });
    expect(r.status, r.body.toString()).toBe(200);
    b.token = s().token;
    const plan = (await b.call('GET', '/backups/plans/p2', undefined, { via: 'unix' })).body;
    expect(plan.status.lastSuccessAt).toBeNull(); // this box has run nothing yet
    const drill = await b.call('POST', '/backups/plans/p2/drill', undefined, { via: 'unix' });
    ok(drill, 202);
    const job = await waitJob(b, drill.body.id, 600_000);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(
      job.result.parts.map((p: { part: unknown; differences: unknown[] }) => [p.part, p.differences]),
    ).toEqual([
      [{ kind: 'config' }, []],
      [{ kind: 'stack', name: 'sick' }, []],
      [{ kind: 'share', name: 'media' }, []],
    ]);
    await b.close();
    fresh = null;
  }, 900_000);
});
