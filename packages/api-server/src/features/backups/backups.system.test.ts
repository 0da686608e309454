/**
 * Backups that run (issue 23), through the real server: an array on loop disks (lab mode, real
 * mergerfs), a formatted loop backup disk, real restic, a stack on a private dockerd, events
 * delivered to a real webhook receiver. A plan backs up the configuration, one stack's app data and
 * one share; runs, restores, a detached disk, drills and a fresh box that imports the configuration
 * are driven through the API; schedules by moving the server's clock.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { importBody, previewBody } from '@appliance/archive-preview/test-support';
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
const PASSPHRASE = 'backup passphrase of the box';
const LABEL = 'bk';
const EVENTS = [
  'config_backup_failed',
  'appdata_backup_failed',
  'backup_destination_stale',
  'restore_drill_failed',
];

/** path → [sha256, mode, uid, gid] of every file and folder below `dir`. */
async function fingerprint(dir: string): Promise<Record<string, [string, number, number, number]>> {
  const out: Record<string, [string, number, number, number]> = {};
  const walk = async (d: string, rel: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      const st = await fs.lstat(p);
      const sum = e.isFile()
        ? createHash('sha256')
            .update(await fs.readFile(p))
            .digest('hex')
        : e.isDirectory()
          ? 'dir'
          : 'other';
      out[r] = [sum, st.mode & 0o7777, st.uid, st.gid];
      if (e.isDirectory()) await walk(p, r);
    }
  };
  await walk(dir, '');
  return out;
}

const du = async (dir: string) => Number((await run('du', ['-sb', dir])).stdout.split('\t')[0]);

describe('backups on a real array, a real backup disk, real restic and a private dockerd', () => {
  let lab: LabArray;
  let dockerd: PrivateDockerd;
  let hooks: Awaited<ReturnType<typeof startEventReceiver>>;
  let backupDisk: LoopDisk;
  let fresh: Sandbox | null = null;
  const previousDockerHost = process.env['DOCKER_HOST'];
  const s = () => lab.s;
  const share = () => lab.real('/mnt/user/media');
  const appdata = () => lab.real('/mnt/cache/appdata/web');
  const mountpoint = () => lab.real(`/mnt/disks/${LABEL}`);
  const repo = () => path.join(mountpoint(), 'appliance-backups/nightly/repository');
  const ok = (r: { status: number; text: string }, status: number) => expect(r.status, r.text).toBe(status);

  /** restic as an administrator would run it by hand on the mounted disk. */
  async function restic(args: string[], box: Sandbox = s()) {
    const row = box.server.ctx.sqlite
      .prepare("select repo_password from backup_plans where name = 'nightly'")
      .get() as {
      repo_password: Buffer;
    };
    const pw = path.join(lab.work, 'restic.pw');
    await fs.writeFile(pw, box.server.ctx.sealer.unsealText(row.repo_password), { mode: 0o600 });
    const repository = path.join(box.root, `mnt/disks/${LABEL}/appliance-backups/nightly/repository`);
    return run('restic', ['--no-cache', ...args], {
      env: { ...process.env, RESTIC_REPOSITORY: repository, RESTIC_PASSWORD_FILE: pw },
      maxBuffer: 64 * MiB,
    }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        out: e.stdout,
        err: e.stderr,
      }),
    );
  }

  async function withMounted<T>(fn: () => Promise<T>, box: Sandbox = s()): Promise<T> {
    ok(await box.call('POST', `/disks/external/${LABEL}/mount`), 200);
    try {
      return await fn();
    } finally {
      ok(await box.call('POST', `/disks/external/${LABEL}/eject`), 200);
    }
  }

  async function runPlan(box: Sandbox = s(), plan = 'nightly') {
    const r = await box.call('POST', `/backups/plans/${plan}/run`);
    ok(r, 202);
    expect(r.headers.get('location')).toBe(`/api/v1/jobs/${r.body.id}`);
    return waitJob(box, r.body.id, 600_000);
  }

  const compose = `services:
  app:
    image: appliance-lab/busybox:latest
    command: ["sleep", "3600"]
    volumes:
      - \${APPDATA}/web:/data
`;
  const composeCli = (...args: string[]) =>
    run(
      'docker-compose',
      [
        '--project-name',
        'web',
        '--project-directory',
        path.join(s().root, 'var/lib/appliance/stacks/web'),
        '--file',
        path.join(s().root, 'var/lib/appliance/stacks/web/docker-compose.yml'),
        '--env-file',
        path.join(s().root, 'var/lib/appliance/stacks/web/.env'),
        ...args,
      ],
      { env: { ...process.env, DOCKER_HOST: dockerd.host } },
    );
  const stackRunning = async () =>
    (
      await dockerd.docker([
        'ps',
        '-q',
        '--filter',
        'label=com.docker.compose.project=web',
        '--filter',
        'status=running',
      ])
    ).stdout.trim() !== '';

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['restic', 'dockerd', 'docker', 'docker-compose', 'xfs_io', 'losetup'],
    });
    dockerd = await startPrivateDockerd();
    process.env['DOCKER_HOST'] = dockerd.host;
    lab = await createLabArray({ dataDisks: 1, paritySizeMiB: 1200, dataSizeMiB: 1024 });
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
        hostname: 'nas-a',
        timezone: 'UTC',
        backupPassphrase: PASSPHRASE,
      }),
      200,
    );
    // the backup disk: registered as a backup destination, formatted xfs through the API
    backupDisk = await createLoopDisk({ sizeBytes: 3 * 1024 * MiB, imageDir: lab.imageDir });
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
    // a share with files of several owners and modes
    ok(await s().call('POST', '/shares', { name: 'media' }), 201);
    await writeFiles(share(), 120, (i) => 20_000 + i * 997);
    await fs.mkdir(path.join(share(), 'photos/2024'), { recursive: true });
    for (let i = 0; i < 30; i++)
      await fs.writeFile(path.join(share(), 'photos/2024', `img${i}.jpg`), randomBytes(100_000 + i));
    await fs.chown(path.join(share(), 'photos/2024/img3.jpg'), 1000, 100);
    await fs.chmod(path.join(share(), 'photos/2024/img3.jpg'), 0o640);
    await fs.chmod(path.join(share(), 'photos'), 0o750);
    // a stack whose app data lives below /mnt/cache, running on the private dockerd
    await fs.mkdir(path.join(appdata(), 'db'), { recursive: true });
    await fs.writeFile(path.join(appdata(), 'config.xml'), '<config version="1"/>\n');
    await fs.writeFile(path.join(appdata(), 'db/data.bin'), randomBytes(2 * MiB));
    await fs.chown(path.join(appdata(), 'db'), 911, 911);
    await fs.chown(path.join(appdata(), 'db/data.bin'), 911, 911);
    await fs.chmod(path.join(appdata(), 'db/data.bin'), 0o600);
    const st = await s().call('POST', '/stacks', {
      name: 'web',
      compose,
      env: { APPDATA: lab.real('/mnt/cache/appdata') },
    });
    ok(st, 201);
    await composeCli('up', '-d');
    expect(await stackRunning()).toBe(true);
  }, 600_000);

  afterAll(async () => {
    await fresh?.close().catch(() => undefined);
    if (lab) await composeCli('down').catch(() => undefined);
    await lab?.destroy();
    await backupDisk?.destroy().catch(() => undefined);
    await dockerd?.stop();
    await hooks?.close();
    if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = previousDockerHost;
  }, 300_000);

  it('plans are validated and audited; the password is sealed and never shown', async () => {
    const bad = await s().call('POST', '/backups/plans', {
      name: 'x',
      destination: LABEL,
      schedule: { kind: 'daily', time: '3:00' },
    });
    expect([bad.status, bad.body.code]).toEqual([400, 'bad_request']);
    const empty = await s().call('POST', '/backups/plans', {
      name: 'x',
      destination: LABEL,
      schedule: { kind: 'daily', time: '03:00' },
    });
    expect([empty.status, empty.body.code]).toEqual([400, 'bad_request']);
    const nostack = await s().call('POST', '/backups/plans', {
      name: 'x',
      destination: LABEL,
      stacks: [{ name: 'nope' }],
      schedule: { kind: 'daily', time: '03:00' },
    });
    expect([nostack.status, nostack.body.code]).toEqual([404, 'stack_not_found']);
    const nodisk = await s().call('POST', '/backups/plans', {
      name: 'x',
      destination: 'other',
      configuration: true,
      schedule: { kind: 'daily', time: '03:00' },
    });
    expect([nodisk.status, nodisk.body.code]).toEqual([404, 'external_disk_not_found']);
    expect(s().server.ctx.sqlite.prepare('select count(*) as n from backup_plans').get()).toEqual({ n: 0 });

    const r = await s().call('POST', '/backups/plans', {
      name: 'nightly',
      destination: LABEL,
      configuration: true,
      stacks: [{ name: 'web' }],
      shares: ['media'],
      schedule: { kind: 'daily', time: '03:30' },
      retention: { daily: 7, weekly: 4, monthly: 6 },
    });
    ok(r, 201);
    expect(r.body).toMatchObject({
      name: 'nightly',
      destination: LABEL,
      stacks: [{ name: 'web', keepRunning: false }],
      shares: ['media'],
      drill: { enabled: true, everyDays: 30, time: '05:00' },
      repository: `/mnt/disks/${LABEL}/appliance-backups/nightly/repository`,
      hasPassword: true,
      status: { lastRun: null, lastSuccessAt: null, stale: false },
    });
    expect(r.text).not.toMatch(/password"?\s*:\s*"/);
    const row = s().server.ctx.sqlite.prepare('select repo_password from backup_plans').get() as {
      repo_password: Buffer;
    };
    expect(s().server.ctx.sealer.unsealText(row.repo_password)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const audit = (await s().call('GET', '/audit')).body.entries[0];
    expect(audit).toMatchObject({ operation: 'backups.plan.create', target: 'nightly' });
    expect(JSON.stringify(audit)).not.toContain(s().server.ctx.sealer.unsealText(row.repo_password));
    const dup = await s().call('POST', '/backups/plans', {
      name: 'nightly',
      destination: LABEL,
      configuration: true,
      schedule: { kind: 'daily', time: '03:00' },
    });
    expect([dup.status, dup.body.code]).toEqual([409, 'backup_plan_exists']);
  });

  let firstSnapshots: string[] = [];
  it('a run backs up the configuration, the stack (stopped, then started again) and the share; restic lists them', async () => {
    const events: Array<Record<string, unknown>> = [];
    const unsubscribe = s().server.ctx.events.subscribe((e) => {
      if (e.type === 'progress' && e.data.operation === 'backup.run')
        events.push(e.data.progress as Record<string, unknown>);
    });
    const job = await runPlan();
    unsubscribe();
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result.parts.map((p: { part: unknown; state: string }) => [p.part, p.state])).toEqual([
      [{ kind: 'config' }, 'succeeded'],
      [{ kind: 'stack', name: 'web' }, 'succeeded'],
      [{ kind: 'share', name: 'media' }, 'succeeded'],
    ]);
    expect(job.output.join('\n')).toMatch(/stopping the stack web/);
    expect(job.output.join('\n')).toMatch(/starting the stack web again/);
    expect(await stackRunning()).toBe(true);
    // progress with files, bytes, rate and ETA
    const figures = events.filter((p) => typeof p['bytesDone'] === 'number');
    expect(figures.length).toBeGreaterThan(0);
    expect(Object.keys(figures.at(-1)!)).toEqual(
      expect.arrayContaining([
        'percent',
        'bytesDone',
        'bytesTotal',
        'etaSeconds',
        'files',
        'filesTotal',
        'rate',
        'part',
      ]),
    );
    // the run mounted the disk and unmounted it after
    expect(
      (await s().call('GET', '/disks/external')).body.disks.find((d: { label: string }) => d.label === LABEL)
        .mounted,
    ).toBe(false);
    const list = await withMounted(
      async () =>
        JSON.parse((await restic(['snapshots', '--json'])).out) as {
          short_id: string;
          tags: string[];
          paths: string[];
        }[],
    );
    expect(list.map((x) => x.tags.filter((t) => !t.startsWith('path:')))).toEqual([
      ['appliance', 'plan:nightly', 'config'],
      ['appliance', 'plan:nightly', 'stack:web'],
      ['appliance', 'plan:nightly', 'share:media'],
    ]);
    expect(list[1]!.tags).toContain('path:/mnt/cache/appdata/web');
    firstSnapshots = list.map((x) => x.short_id);
    // the API lists the same snapshots, with sizes
    const api = await s().call('GET', '/backups/snapshots?plan=nightly');
    ok(api, 200);
    expect(api.body.snapshots.map((x: { shortId: string }) => x.shortId).sort()).toEqual(
      [...firstSnapshots].sort(),
    );
    const shareSnap = api.body.snapshots.find((x: { part: { kind: string } }) => x.part?.kind === 'share');
    expect(shareSnap.sizeBytes).toBeGreaterThan(5 * MiB);
    expect(shareSnap.files).toBe(150);
    const plan = (await s().call('GET', '/backups/plans/nightly')).body;
    expect(plan.status.lastRun).toMatchObject({ jobId: job.id, state: 'succeeded' });
    expect(plan.status.lastSuccessAt).not.toBeNull();
  }, 600_000);

  it('a second run after changing files adds only the change (repository growth close to it)', async () => {
    const before = await withMounted(() => du(repo()));
    const changed = 4 * MiB;
    await fs.writeFile(path.join(share(), 'new.bin'), randomBytes(3 * MiB));
    await fs.writeFile(path.join(share(), 'photos/2024/img0.jpg'), randomBytes(MiB));
    const job = await runPlan();
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const media = job.result.parts.find((p: { part: { kind: string } }) => p.part.kind === 'share');
    expect(media.dataAdded).toBeGreaterThan(changed * 0.95);
    expect(media.dataAdded).toBeLessThan(changed * 1.1 + 256 * 1024);
    const after = await withMounted(() => du(repo()));
    // the growth is the change, the app data (unchanged: a few trees) and a new config archive
    expect(after - before).toBeGreaterThan(changed * 0.95);
    expect(after - before).toBeLessThan(changed * 1.25 + 2 * MiB);
    // retention ran with the first run of the day; a second run the same day leaves it to tomorrow's
    expect(job.result.retention).toEqual({ ran: false, removed: 0, kept: null, pruned: false });
    const list = await withMounted(
      async () => JSON.parse((await restic(['snapshots', '--json'])).out) as { short_id: string }[],
    );
    expect(list).toHaveLength(6);
    expect(firstSnapshots.every((id) => list.some((x) => x.short_id === id))).toBe(true);
  }, 600_000);

  it('restores a deleted folder of the share into its place: identical bytes, owners and modes', async () => {
    const expected = await fingerprint(path.join(share(), 'photos'));
    await fs.rm(path.join(share(), 'photos'), { recursive: true });
    const snaps = (await s().call('GET', '/backups/snapshots?plan=nightly')).body.snapshots;
    const latest = snaps.find((x: { part: { kind: string } }) => x.part?.kind === 'share');
    const body = { plan: 'nightly', snapshot: latest.shortId, share: 'media', paths: ['photos'] };
    const wrong = await s().call('POST', '/backups/restore', { ...body, confirmation: 'yes' });
    expect([wrong.status, wrong.body.code, wrong.body.details.expected]).toEqual([
      409,
      'confirmation_required',
      'RESTORE share media',
    ]);
    const r = await s().call('POST', '/backups/restore', { ...body, confirmation: 'RESTORE share media' });
    ok(r, 202);
    const job = await waitJob(s(), r.body.id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ target: '/mnt/user/media', restored: ['photos'], movedAside: [] });
    expect(await fingerprint(path.join(share(), 'photos'))).toEqual(expected);
    // over files that are there: they are moved aside, not lost
    await fs.writeFile(path.join(share(), 'photos/2024/img1.jpg'), 'edited');
    const again = await waitJob(
      s(),
      (await s().call('POST', '/backups/restore', { ...body, confirmation: 'RESTORE share media' })).body.id,
    );
    expect(again.state).toBe('succeeded');
    expect(await fingerprint(path.join(share(), 'photos'))).toEqual(expected);
    const aside = again.result.movedAside[0];
    expect(aside.path).toBe('/mnt/user/media/photos');
    expect(aside.to).toMatch(/^\/mnt\/user\/media\/photos\.before-restore-\d{8}T\d{6}Z$/);
    expect(await fs.readFile(path.join(lab.real(aside.to), '2024/img1.jpg'), 'utf8')).toBe('edited');
    await fs.rm(lab.real(aside.to), { recursive: true });
    // into a new folder
    const into = await waitJob(
      s(),
      (await s().call('POST', '/backups/restore', { ...body, folder: '/mnt/user/media/restored' })).body.id,
    );
    expect(into.state, JSON.stringify(into.error)).toBe('succeeded');
    expect(await fingerprint(path.join(share(), 'restored/photos'))).toEqual(expected);
    await fs.rm(path.join(share(), 'restored'), { recursive: true });
  }, 600_000);

  it("restores a stack's app data into its place: identical, owners and modes kept; the stack comes back up", async () => {
    const expected = await fingerprint(appdata());
    await fs.rm(path.join(appdata(), 'db'), { recursive: true });
    await fs.writeFile(path.join(appdata(), 'config.xml'), 'broken');
    const snaps = (await s().call('GET', '/backups/snapshots?plan=nightly')).body.snapshots;
    const latest = snaps.find((x: { part: { kind: string } }) => x.part?.kind === 'stack');
    expect(latest.folders).toEqual(['/mnt/cache/appdata/web']);
    const r = await s().call('POST', '/backups/restore', {
      plan: 'nightly',
      snapshot: latest.shortId,
      stack: 'web',
      confirmation: 'RESTORE stack web',
    });
    ok(r, 202);
    const job = await waitJob(s(), r.body.id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ restored: ['appdata/web'], stackStarted: true });
    expect(await fingerprint(appdata())).toEqual(expected);
    expect(await stackRunning()).toBe(true);
    const aside = lab.real(job.result.movedAside[0].to);
    expect(await fs.readFile(path.join(aside, 'config.xml'), 'utf8')).toBe('broken');
    await fs.rm(aside, { recursive: true });
  }, 600_000);

  it('the destination detached during a run: the job fails clearly, the event is delivered; re-attached, the next run succeeds and restic check passes', async () => {
    await writeFiles(share(), 12, () => 16 * MiB, 'bulk');
    const start = await s().call('POST', '/backups/plans/nightly/run');
    ok(start, 202);
    const id = start.body.id as string;
    // one job per destination, and never beside a format, mount or eject of it (checked once the
    // job has the disk mounted: while it mounts, its disk lock answers 409 disk_busy)
    await eventually(async () => {
      const p = String((await s().call('GET', `/jobs/${id}`)).body.phase);
      return p.startsWith('the configuration') || p.startsWith('stack') ? true : undefined;
    }, 120_000);
    for (const r of [
      await s().call('POST', '/backups/plans/nightly/run'),
      await s().call('POST', '/backups/plans/nightly/drill'),
      await s().call('POST', `/disks/external/${LABEL}/mount`),
      await s().call('POST', `/disks/external/${LABEL}/eject`),
    ]) {
      expect([r.status, r.body.code], r.text).toEqual([409, 'job_running']);
      expect(r.body.details.jobId).toBe(id);
    }
    // a format is refused before its lock, as for any mounted disk
    const format = await s().call('POST', `/disks/external/${LABEL}/format`, {
      confirmation: erasePhrase([backupDisk.device]),
    });
    expect([format.status, format.body.code]).toEqual([409, 'disk_mounted']);
    // pull the plug once restic writes the share
    await eventually(async () => {
      const j = (await s().call('GET', `/jobs/${id}`)).body;
      if (j.state !== 'running')
        throw new Error(`the run ended before the disk was pulled: ${JSON.stringify(j)}`);
      return String(j.phase).startsWith('share media') && (j.bytesDone ?? 0) > 8 * MiB ? true : undefined;
    }, 300_000);
    await run('xfs_io', ['-x', '-c', 'shutdown', mountpoint()]);
    const job = await waitJob(s(), id, 120_000);
    expect(job.state).toBe('failed');
    expect(job.error.code).toBe('backup_failed');
    expect(job.error.message).toMatch(
      /share media \(.*(stopped answering|input\/output error|I\/O error).*\)/i,
    );
    const hook = await eventually(() => hooks.of('appdata_backup_failed')[0], 30_000);
    expect(hook.title).toMatch(/share media/);
    expect(hook.message).toContain('nightly');
    expect(hooks.of('config_backup_failed')).toEqual([]);
    // the run did not leave the dead mount behind
    expect((await fs.readFile('/proc/self/mountinfo', 'utf8')).includes(` ${mountpoint()} `)).toBe(false);
    // unplug and plug in again: a new loop device, maybe under another name
    await run('losetup', ['-d', backupDisk.device]);
    const { stdout } = await run('losetup', ['-f', '--show', backupDisk.image]);
    backupDisk = { ...backupDisk, device: stdout.trim() };
    const next = await runPlan();
    expect(next.state, JSON.stringify(next.error)).toBe('succeeded');
    const check = await withMounted(() => restic(['check', '--read-data']));
    expect(check.code, check.out + check.err).toBe(0);
    expect(check.out).toMatch(/no errors were found/);
  }, 900_000);

  it('a drill passes on a good repository; after its packs are corrupted it fails and raises restore_drill_failed', async () => {
    const r = await s().call('POST', '/backups/plans/nightly/drill');
    ok(r, 202);
    const good = await waitJob(s(), r.body.id, 600_000);
    expect(good.state, JSON.stringify(good.error)).toBe('succeeded');
    expect(good.result.check).toEqual({ subset: '1/10', error: null });
    expect(
      good.result.parts.map((p: { part: unknown; whole: boolean; differences: unknown[] }) => [
        p.part,
        p.whole,
        p.differences,
      ]),
    ).toEqual([
      [{ kind: 'config' }, true, []],
      [{ kind: 'stack', name: 'web' }, true, []],
      [{ kind: 'share', name: 'media' }, true, []],
    ]);
    expect(hooks.of('restore_drill_failed')).toEqual([]);
    // corrupt every data pack (which pack holds the data of the latest snapshots depends on how
    // restic filled them: the biggest one once held only an older snapshot's, and the drill passed)
    const saved: { file: string; bytes: Buffer }[] = [];
    await withMounted(async () => {
      for (const d of await fs.readdir(path.join(repo(), 'data')))
        for (const f of await fs.readdir(path.join(repo(), 'data', d))) {
          const file = path.join(repo(), 'data', d, f);
          const bytes = await fs.readFile(file);
          saved.push({ file, bytes });
          const fh = await fs.open(file, 'r+');
          await fh.write(Buffer.from('bit rot here'), 0, 12, Math.floor(bytes.length / 3));
          await fh.close();
        }
    });
    expect(saved.length).toBeGreaterThan(0);
    const bad = await waitJob(s(), (await s().call('POST', '/backups/plans/nightly/drill')).body.id, 600_000);
    expect(bad.state).toBe('failed');
    expect(bad.error.code).toBe('drill_failed');
    const hook = await eventually(() => hooks.of('restore_drill_failed')[0], 30_000);
    expect(hook.message).toMatch(/nightly/);
    expect((await s().call('GET', '/backups/plans/nightly')).body.status.lastDrill).toMatchObject({
      jobId: bad.id,
      state: 'failed',
    });
    // put the packs back so the rest of the suite has a sound repository
    await withMounted(async () => {
      for (const { file, bytes } of saved) await fs.writeFile(file, bytes);
      expect((await restic(['check'])).code).toBe(0);
    });
  }, 900_000);

  it('refusals write nothing: a missing disk, a snapshot of another part, a path it does not hold', async () => {
    const snaps = (await s().call('GET', '/backups/snapshots?plan=nightly')).body.snapshots;
    const shareSnap = snaps.find((x: { part: { kind: string } }) => x.part?.kind === 'share');
    const mismatch = await waitJob(
      s(),
      (
        await s().call('POST', '/backups/restore', {
          plan: 'nightly',
          snapshot: shareSnap.shortId,
          stack: 'web',
          confirmation: 'RESTORE stack web',
        })
      ).body.id,
    );
    expect([mismatch.state, mismatch.error.code]).toEqual(['failed', 'snapshot_part_mismatch']);
    const nopath = await waitJob(
      s(),
      (
        await s().call('POST', '/backups/restore', {
          plan: 'nightly',
          snapshot: shareSnap.shortId,
          share: 'media',
          paths: ['no/such/folder'],
          folder: '/mnt/user/media/x',
        })
      ).body.id,
    );
    expect([nopath.state, nopath.error.code]).toEqual(['failed', 'path_not_in_snapshot']);
    expect(await fs.stat(path.join(share(), 'x')).catch(() => null)).toBeNull();
    for (const [body, code] of [
      [{ plan: 'nightly', snapshot: shareSnap.shortId, share: 'media', paths: ['../etc'] }, 'bad_request'],
      [{ plan: 'nightly', snapshot: shareSnap.shortId, share: 'media', stack: 'web' }, 'bad_request'],
      [{ plan: 'nightly', snapshot: shareSnap.shortId, share: 'media', folder: '/etc/x' }, 'bad_request'],
      [
        { plan: 'nope', snapshot: shareSnap.shortId, share: 'media', folder: '/mnt/user/media/y' },
        'backup_plan_not_found',
      ],
    ] as const) {
      const r = await s().call('POST', '/backups/restore', body);
      expect([r.status >= 400 && r.status < 500, r.body.code], JSON.stringify(body)).toEqual([true, code]);
    }
    // a disk that is not attached: refused at once, no job
    const before = (await s().call('GET', '/jobs')).body.jobs.length;
    await run('losetup', ['-d', backupDisk.device]);
    try {
      const r = await s().call('POST', '/backups/plans/nightly/run');
      expect([r.status, r.body.code]).toEqual([409, 'backup_destination_missing']);
      expect(r.body.message).toMatch(/not attached: plug it in/);
      expect((await s().call('GET', '/jobs')).body.jobs.length).toBe(before);
    } finally {
      const { stdout } = await run('losetup', ['-f', '--show', backupDisk.image]);
      backupDisk = { ...backupDisk, device: stdout.trim() };
    }
  }, 300_000);

  it('a configuration import on a fresh box brings the plans and their password: the snapshots are usable there', async () => {
    // the latest configuration archive sits beside the repository, readable without its password
    const archive = await withMounted(() =>
      fs.readFile(path.join(mountpoint(), 'appliance-backups/nightly/appliance-config-latest.tar.zst')),
    );
    const expectedPhotos = await fingerprint(path.join(share(), 'photos'));
    fresh = await startSandbox({
      lab: true,
      config: { lab: { enabled: true, imageDir: lab.imageDir } },
      start: { runner: lab.runner },
    });
    const b = fresh;
    const p = previewBody(archive, PASSPHRASE);
    const preview = await rawRequest({ socket: b.socket }, 'POST', '/config/import/preview', p.body, {
      'content-type': p.contentType,
    });
    expect(preview.status, preview.body.toString()).toBe(200);
    expect(preview.json().secrets.status).toBe('opened');
    const imp = importBody(archive, {
      confirmation: 'RESTORE nas-a',
      passphrase: PASSPHRASE,
      diskMapping: { disks: [] },
    });
    const r = await rawRequest({ socket: b.socket }, 'POST', '/config/import', imp.body, {
      'content-type': imp.contentType,
    });
    expect(r.status, r.body.toString()).toBe(200);
    b.token = s().token; // accounts and tokens are the archive's now
    const plans = await b.call('GET', '/backups/plans', undefined, { via: 'unix' });
    ok(plans, 200);
    expect(
      plans.body.plans.map((x: { name: string; hasPassword: boolean }) => [x.name, x.hasPassword]),
    ).toEqual([['nightly', true]]);
    const snaps = await b.call('GET', '/backups/snapshots?plan=nightly', undefined, { via: 'unix' });
    ok(snaps, 200);
    const a = (await s().call('GET', '/backups/snapshots?plan=nightly')).body.snapshots.map(
      (x: { id: string }) => x.id,
    );
    expect(snaps.body.snapshots.map((x: { id: string }) => x.id)).toEqual(a);
    const shareSnap = snaps.body.snapshots.find((x: { part: { kind: string } }) => x.part?.kind === 'share');
    expect(shareSnap.sizeBytes).toBeGreaterThan(0);
    const restore = await b.call(
      'POST',
      '/backups/restore',
      {
        plan: 'nightly',
        snapshot: shareSnap.shortId,
        share: 'media',
        paths: ['photos'],
        folder: '/mnt/user/media/from-backup',
      },
      { via: 'unix' },
    );
    ok(restore, 202);
    const job = await waitJob(b, restore.body.id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(await fingerprint(path.join(b.root, 'mnt/user/media/from-backup/photos'))).toEqual(expectedPhotos);
    // the configuration of a snapshot comes out as an archive the import reads
    const cfg = snaps.body.snapshots.find((x: { part: { kind: string } }) => x.part?.kind === 'config');
    const dl = await rawRequest(
      { socket: b.socket },
      'GET',
      `/backups/snapshots/${cfg.shortId}/configuration?plan=nightly`,
      Buffer.alloc(0),
    );
    expect(dl.status).toBe(200);
    const p2 = previewBody(dl.body, PASSPHRASE);
    const again = await rawRequest({ socket: b.socket }, 'POST', '/config/import/preview', p2.body, {
      'content-type': p2.contentType,
    });
    expect(again.status, again.body.toString()).toBe(200);
    expect(again.json().archive.hostname).toBe('nas-a');
    await b.close();
    fresh = null;
  }, 600_000);

  it('schedules: a due plan runs, staleness is raised once, a drill follows a month later (the clock moves, nothing sleeps)', async () => {
    const ctx = s().server.ctx;
    const jobsOf = async (type: string) =>
      (await s().call('GET', `/jobs?type=${type}`)).body.jobs as {
        id: string;
        trigger: string;
        state: string;
      }[];
    // a day after the next 03:30 slot (a new local day whatever the hour the suite runs at: before
    // 03:30 the next slot is still today, the day of the earlier runs): the missed slot runs once
    const plan = (await s().call('GET', '/backups/plans/nightly')).body;
    lab.clock.setTo(new Date(Date.parse(plan.status.nextRunAt) + 86_400_000 + 1000));
    await ctx.scheduler.tick();
    const scheduled = (await jobsOf('backup.run')).find((j) => j.trigger === 'schedule');
    expect(scheduled).toBeDefined();
    const done = await waitJob(s(), scheduled!.id, 600_000);
    expect(done.state, JSON.stringify(done.error)).toBe('succeeded');
    // a new day: retention keeps the newest snapshot of each part per day, forgets the rest, prunes
    expect(done.result.retention, JSON.stringify(done.result.retention)).toMatchObject({
      ran: true,
      kept: 3,
      pruned: true,
    });
    expect(done.result.retention.removed).toBeGreaterThan(3);
    // three days without a success (the disk busy, so the due runs wait): stale, raised once
    hooks.clear();
    const last = (await s().call('GET', '/backups/plans/nightly')).body.status.lastSuccessAt as string;
    lab.clock.setTo(new Date(Date.parse(last) + 3 * 86_400_000));
    const release = ctx.jobs.hold([`backup:${LABEL}`], { type: 'test', target: LABEL, title: 'a test hold' });
    try {
      await ctx.scheduler.tick();
      const stale = await eventually(() => hooks.of('backup_destination_stale')[0], 30_000);
      expect(stale.title).toContain(`"${LABEL}"`);
      expect(stale.message).toMatch(/every day/);
      lab.clock.advance(20 * 60_000);
      await ctx.scheduler.tick();
      await new Promise((r) => setTimeout(r, 500));
      expect(hooks.of('backup_destination_stale')).toHaveLength(1);
      expect((await s().call('GET', '/backups/plans/nightly')).body.status.stale).toBe(true);
      // the shared condition: GET /health shows it while it holds
      const held = (await s().call('GET', '/health')).body.conditions as { key: string; eventType: string }[];
      expect(held.filter((c) => c.eventType === 'backup_destination_stale').map((c) => c.key)).toEqual([
        'backup:stale:nightly',
      ]);
      expect((await jobsOf('backup.run')).filter((j) => j.trigger === 'schedule')).toHaveLength(1);
    } finally {
      release();
    }
    // the disk is free: the missed slots run once; the success ends the condition
    await ctx.scheduler.tick();
    const caughtUp = (await jobsOf('backup.run')).filter((j) => j.trigger === 'schedule');
    expect(caughtUp).toHaveLength(2);
    expect((await waitJob(s(), caughtUp[0]!.id, 600_000)).state).toBe('succeeded');
    expect((await s().call('GET', '/backups/plans/nightly')).body.status.stale).toBe(false);
    const after = (await s().call('GET', '/health')).body.conditions as { eventType: string }[];
    expect(after.filter((c) => c.eventType === 'backup_destination_stale')).toEqual([]);
    // a month after the first success: the drill is due (a run of the same day goes first)
    const first = s()
      .server.ctx.sqlite.prepare("select first_success_at as f from backup_plan_state where plan = 'nightly'")
      .get() as { f: string };
    lab.clock.setTo(new Date(Date.parse(first.f) + 31 * 86_400_000));
    await ctx.scheduler.tick();
    for (const j of (await jobsOf('backup.run')).filter((x) => x.state === 'running'))
      await waitJob(s(), j.id, 600_000);
    await ctx.scheduler.tick();
    const drill = (await jobsOf('backup.drill')).find((j) => j.trigger === 'schedule');
    expect(drill).toBeDefined();
    expect((await waitJob(s(), drill!.id, 600_000)).state).toBe('succeeded');
    expect((await s().call('GET', '/backups/plans/nightly')).body.status.nextDrillAt).not.toBeNull();
  }, 900_000);

  it('PUT replaces the settings (audited), DELETE asks for "DELETE <name>" and leaves the snapshots on the disk', async () => {
    const plan = (await s().call('GET', '/backups/plans/nightly')).body;
    const put = await s().call('PUT', '/backups/plans/nightly', {
      destination: LABEL,
      configuration: true,
      stacks: [{ name: 'web', keepRunning: true }],
      shares: ['media'],
      schedule: { kind: 'weekly', weekday: 'sunday', time: '04:00' },
    });
    ok(put, 200);
    expect(put.body).toMatchObject({
      schedule: { kind: 'weekly', weekday: 'sunday', time: '04:00' },
      createdAt: plan.createdAt,
    });
    expect((await s().call('GET', '/audit')).body.entries[0]).toMatchObject({
      operation: 'backups.plan.update',
      details: { changed: ['stacks', 'schedule'] },
    });
    const del = await s().call('DELETE', '/backups/plans/nightly', {});
    expect([del.status, del.body.code, del.body.details.expected]).toEqual([
      409,
      'confirmation_required',
      'DELETE nightly',
    ]);
    expect(del.body.message).toMatch(/can no longer read them/);
    ok(await s().call('DELETE', '/backups/plans/nightly', { confirmation: 'DELETE nightly' }), 204);
    expect((await s().call('GET', '/backups/plans/nightly')).status).toBe(404);
    await withMounted(async () =>
      expect((await fs.readdir(path.join(repo(), 'snapshots'))).length).toBeGreaterThan(0),
    );
  });
});
