/**
 * Crash tests (issue 9): the real `appliance serve` process is killed with SIGKILL (together with
 * the tools it is running, as a kill of the service's cgroup would) in the middle of a template
 * install, a share data delete, an external disk format and a config export. Each kill waits for
 * evidence that the operation is in flight and the request has not answered. The server is then
 * started again on the same root, and the state must be consistent: the service answers, no
 * half-written stack, the delete is completed by a rerun, no row claims a filesystem the disk does
 * not hold, no temporary file is left, and the operation works again. See docs/reliability.md
 * ("Crash tests").
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  createLoopDisk,
  type LoopDisk,
  type PrivateDockerd,
  requirePrerequisites,
  startPrivateDockerd,
} from '@appliance/lab';
import { readHostSocketPorts } from '@appliance/template-installer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blkidProbe,
  call,
  createAdmin,
  createToolShims,
  descendants,
  execute,
  inFlight,
  killAll,
  query,
  run,
  type ServerProcess,
  sleep,
  slowSyscalls,
  startServerProcess,
  tempLeftovers,
  type ToolShims,
  waitForKillPoint,
  writeLabConfig,
} from './crash-support.ts';
import { removeSandboxRoot } from '../../test-support/sandbox.ts';
import { webPortTemplate } from '../../test-support/templates.ts';

const MiB = 1024 * 1024;

let work: string;
let labDir: string;
let shims: ToolShims;
let dockerd: PrivateDockerd | undefined;
const disks: LoopDisk[] = [];
const mounts: string[] = [];

beforeAll(async () => {
  await requirePrerequisites({
    root: true,
    tools: [
      'losetup',
      'mount',
      'umount',
      'findmnt',
      'blkid',
      'wipefs',
      'blockdev',
      'mkfs.xfs',
      'mkfs.ext4',
      'dockerd',
      'docker',
      'docker-compose',
      'tar',
      'zstd',
      'strace',
    ],
  });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-crash-'));
  labDir = path.join(work, 'images');
  fs.mkdirSync(labDir);
  shims = await createToolShims(labDir, path.join(work, 'shims'));
}, 120_000);

afterAll(async () => {
  await killAll();
  for (const m of mounts.splice(0).reverse()) await run('umount', ['-l', m]).catch(() => undefined);
  for (const d of disks.splice(0)) await d.destroy().catch(() => undefined);
  await dockerd?.stop();
  if (work) {
    // the roots' slot mountpoints are immutable (chattr +i): removeSandboxRoot takes the flag off first
    for (const name of fs.readdirSync(work)) {
      if (name.startsWith('root-')) removeSandboxRoot(path.join(work, name));
    }
    fs.rmSync(work, { recursive: true, force: true });
  }
}, 120_000);

/** A fresh sandbox root and a short socket path (unix socket paths are limited to 108 bytes). */
function newRoot(): { root: string; socket: string } {
  const root = fs.mkdtempSync(path.join(work, 'root-'));
  return { root, socket: `${root}.sock` };
}

const serve = (r: { root: string; socket: string }) =>
  startServerProcess({
    ...r,
    // the shims first on the tool path of the service (never its inherited PATH)
    env: {
      PATH: shims.path,
      APPLIANCE_TOOL_PATH: `${shims.dir}:/usr/sbin:/usr/bin:/sbin:/bin`,
      ...(dockerd ? { DOCKER_HOST: dockerd.host } : {}),
    },
  });

/** The service answers after the restart. */
async function expectAnswers(srv: ServerProcess, token: string): Promise<void> {
  const status = await call(srv.url, null, 'GET', '/setup/status');
  expect(status.status).toBe(200);
  expect(status.body).toEqual({ setupRequired: false });
  expect((await call(srv.url, token, 'GET', '/users')).status).toBe(200);
}

async function labDisk(options: Parameters<typeof createLoopDisk>[0]): Promise<LoopDisk> {
  const d = await createLoopDisk({ imageDir: labDir, ...options });
  disks.push(d);
  return d;
}

describe('crash tests: SIGKILL mid-operation, then a restart on the same root', { timeout: 180_000 }, () => {
  it('template install: no half-written stack, no temp file, no container, and the install works again', async () => {
    dockerd = await startPrivateDockerd();
    const r = newRoot();
    let srv = await serve(r);
    const token = await createAdmin(srv.url);
    const stacksDir = path.join(r.root, 'var/lib/appliance/stacks');
    expect(
      (await call(srv.url, token, 'POST', '/catalog/sources', { id: 'lab', kind: 'directory' })).status,
    ).toBe(201);
    const taken = await readHostSocketPorts('/proc');
    let port = 20000 + Math.floor(Math.random() * 30000);
    while (taken.has(port)) port += 1;
    const templateDir = path.join(r.root, 'var/lib/appliance/catalog/lab/crashy');
    fs.mkdirSync(templateDir, { recursive: true });
    fs.writeFileSync(path.join(templateDir, 'compose.yaml'), webPortTemplate('crashy', 1, port));
    expect(tempLeftovers(r.root)).toEqual([]);

    const entries = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
    const killPoints: Array<{ what: string; slowFsync?: boolean; evidence: (dir: string) => boolean }> = [
      { what: 'the stack folder has just been made', evidence: (dir) => fs.existsSync(dir) },
      {
        // fsync is slowed to 300 ms (strace fault injection), so the window of an atomic write
        // (temp file written, not yet renamed) is wide enough to be seen every time.
        what: 'an atomic write of a stack file is in flight (its temp file exists)',
        slowFsync: true,
        evidence: (dir) => entries(dir).some((n) => n.endsWith('.tmp')),
      },
      {
        what: 'the three files are in place and the compose check runs',
        evidence: (dir) =>
          entries(dir).includes('meta.json') &&
          descendants(srv.pid).some((p) => p.comm.includes('docker-compose')),
      },
    ];
    for (const [i, point] of killPoints.entries()) {
      const name = `crash${i + 1}`;
      const dir = path.join(stacksDir, name);
      const slow = point.slowFsync ? await slowSyscalls(srv.pid, ['fsync'], 300) : null;
      const request = inFlight(call(srv.url, token, 'POST', '/templates/crashy/install', { name }));
      await waitForKillPoint(point.what, request, () => point.evidence(dir));
      await srv.kill();
      await slow?.detach();
      // What the crash left for the restart: a pending row and its folder (maybe a temp file).
      expect(query(r.root, 'select pending from stacks where name = ?', name), point.what).toEqual([
        { pending: 1 },
      ]);
      expect(fs.existsSync(dir), point.what).toBe(true);
      if (point.slowFsync)
        expect(
          entries(dir).some((n) => n.endsWith('.tmp')),
          point.what,
        ).toBe(true);
      srv = await serve(r);
      await expectAnswers(srv, token);
      expectNoHalfStack(r.root, srv, name);
      const listed = await call<{ stacks: Array<{ name: string }> }>(srv.url, token, 'GET', '/stacks');
      const rows = query<{ name: string }>(r.root, 'select name from stacks where pending = 0 order by name');
      expect(listed.body.stacks.map((s) => s.name)).toEqual(rows.map((x) => x.name));
      // Nothing is started by an install: no compose project, no container of it.
      const containers = await dockerd.docker([
        'ps',
        '-a',
        '-q',
        '--filter',
        `label=com.docker.compose.project=${name}`,
      ]);
      expect(containers.stdout.trim()).toBe('');
      expect(tempLeftovers(r.root)).toEqual([]);
    }
    expect(query(r.root, 'select name from stacks')).toEqual([]);
    expect(fs.readdirSync(stacksDir)).toEqual([]);

    // The same names install again (no leftover folder blocks them), completely.
    for (const name of ['crash1', 'crash2', 'crash3']) {
      const again = await call(srv.url, token, 'POST', '/templates/crashy/install', { name });
      expect(again.status, again.text).toBe(201);
      expectNoHalfStack(r.root, srv, name);
      expect(fs.readdirSync(path.join(stacksDir, name)).sort()).toEqual([
        '.env',
        'docker-compose.yml',
        'meta.json',
      ]);
    }
    expect(tempLeftovers(r.root)).toEqual([]);
    await srv.stop();
    await dockerd.stop();
    dockerd = undefined;
  });

  it('share data delete: killed with part of 100,000 files gone; a rerun completes it, other data untouched', async () => {
    const r = newRoot();
    writeLabConfig(r.root, labDir);
    let srv = await serve(r);
    const token = await createAdmin(srv.url);
    const real = (logical: string) => path.join(r.root, logical);
    // Two XFS data disks mounted under the sandbox, their array rows, two shares.
    const now = new Date().toISOString();
    const slots: Array<{ mountpoint: string; device: string; uuid: string; size: number }> = [];
    for (const mountpoint of ['/mnt/disk1', '/mnt/disk2']) {
      const disk = await labDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs' });
      fs.mkdirSync(real(mountpoint), { recursive: true });
      await run('mount', [disk.device, real(mountpoint)]);
      mounts.push(real(mountpoint));
      const uuid = (await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', disk.device])).stdout.trim();
      slots.push({ mountpoint, device: disk.device, uuid, size: disk.sizeBytes });
    }
    execute(r.root, (db) => {
      db.prepare(
        'insert into array_settings (id, create_policy, migration_pending, created_at) values (1, ?, 0, ?)',
      ).run('mfs', now);
      for (const [i, s] of slots.entries()) {
        db.prepare(
          `insert into array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, size_bytes, mountpoint)
           values ('data', ?, ?, 'xfs', ?, 1, ?, ?)`,
        ).run(i + 1, s.device, s.uuid, s.size, s.mountpoint);
      }
      for (const name of ['media', 'keep']) {
        db.prepare(
          "insert into shares (name, cache_mode, create_policy, smb_enabled, smb_browseable, created_at, updated_at) values (?, 'array-only', 'mfs', 1, 1, ?, ?)",
        ).run(name, now, now);
      }
    });
    // media: 200 × 500 empty files on disk1, a small tree with data on disk2; keep: data on both.
    const big = real('/mnt/disk1/media');
    const topDirs: string[] = [];
    for (let i = 0; i < 200; i++) {
      const d = path.join(big, `d${String(i).padStart(3, '0')}`);
      fs.mkdirSync(d, { recursive: true });
      topDirs.push(d);
      for (let j = 0; j < 500; j++) fs.writeFileSync(path.join(d, `f${j}`), '');
    }
    for (let i = 0; i < 5; i++) {
      fs.mkdirSync(real(`/mnt/disk2/media/s${i}/deep`), { recursive: true });
      for (let j = 0; j < 20; j++)
        fs.writeFileSync(real(`/mnt/disk2/media/s${i}/deep/g${j}.bin`), randomBytes(3000));
    }
    for (const disk of ['/mnt/disk1', '/mnt/disk2']) {
      fs.mkdirSync(real(`${disk}/keep/sub`), { recursive: true });
      for (let j = 0; j < 30; j++) fs.writeFileSync(real(`${disk}/keep/sub/k${j}.bin`), randomBytes(2000));
      fs.writeFileSync(real(`${disk}/.snapraid.content`), `content of ${disk}`);
    }
    fs.symlinkSync(real('/mnt/disk1/keep'), real('/mnt/disk1/media/d000/to-keep'));
    const branches = [real('/mnt/disk1/media'), real('/mnt/disk2/media')];
    const branchMeta = branches.map((b) => fs.statSync(b)).map((s) => [s.mode, s.uid, s.gid]);
    const otherData = () => fingerprint([real('/mnt/disk1'), real('/mnt/disk2')], branches);
    const before = otherData();
    const skip = [real('/mnt/disk1'), real('/mnt/disk2')];
    expect(tempLeftovers(r.root, skip)).toEqual([]);

    const total = count(branches);
    expect(total).toEqual({ files: 100_000 + 100 + 1, dirs: 200 + 10 });
    const body = { confirmation: 'media' };
    const request = inFlight(call(srv.url, token, 'POST', '/shares/media/data/delete', body));
    const gone = () => topDirs.filter((d) => !fs.existsSync(d)).length;
    await waitForKillPoint('some, not all, of the 200 top directories are gone', request, () => {
      const g = gone();
      return g >= 3 && g <= 150;
    });
    await srv.kill();
    const left = count(branches);
    expect(left.files).toBeGreaterThan(0);
    expect(left.files).toBeLessThan(total.files);
    expect(gone()).toBeGreaterThanOrEqual(3);
    expect(gone()).toBeLessThan(200);

    srv = await serve(r);
    await expectAnswers(srv, token);
    // The killed run never answered, so it wrote no audit row.
    expect(query(r.root, "select * from audit_log where operation = 'share_data.delete'")).toEqual([]);
    const rerun = await call(srv.url, token, 'POST', '/shares/media/data/delete', body);
    expect(rerun.status, rerun.text).toBe(200);
    // The rerun reports what was left, and only that.
    expect(rerun.body.totals.filesDeleted).toBe(left.files);
    expect(rerun.body.totals.dirsDeleted).toBe(left.dirs);
    expect(rerun.body.branches.map((b: { path: string; present: boolean }) => [b.path, b.present])).toEqual([
      ['/mnt/disk1/media', true],
      ['/mnt/disk2/media', true],
    ]);
    // The branch directories stay, empty, with their owner and mode; everything else is byte-identical.
    for (const [i, b] of branches.entries()) {
      expect(fs.readdirSync(b)).toEqual([]);
      const s = fs.statSync(b);
      expect([s.mode, s.uid, s.gid]).toEqual(branchMeta[i]);
    }
    expect(otherData()).toEqual(before);
    expect(
      query(r.root, "select outcome from audit_log where operation = 'share_data.delete' order by id"),
    ).toEqual([{ outcome: 'ok' }]);
    // A second rerun finds nothing left.
    const third = await call(srv.url, token, 'POST', '/shares/media/data/delete', body);
    expect(third.status).toBe(200);
    expect(third.body.totals).toEqual({ filesDeleted: 0, dirsDeleted: 0, bytesFreed: 0 });
    expect(tempLeftovers(r.root, skip)).toEqual([]);
    await srv.stop();
  });

  it('external format: no row claims what the disk does not hold, and the disk formats again', async () => {
    const r = newRoot();
    writeLabConfig(r.root, labDir);
    let srv = await serve(r);
    const token = await createAdmin(srv.url);
    expect(tempLeftovers(r.root)).toEqual([]);
    let mkfsSeen = 0;
    // Each case: a fresh ext4 disk (registered first, or left an unregistered candidate), a format
    // to xfs, and a kill at one point of the write steps.
    const cases: Array<{
      what: string;
      register: boolean;
      setup(): void;
      evidence(device: string, label: string): Promise<boolean>;
    }> = [
      {
        what: 'wipefs has erased the disk, mkfs has not started (registered disk)',
        register: true,
        setup: () => shims.pause('mkfs.xfs', 'before', 30),
        evidence: async (device) =>
          shims.started('mkfs.xfs') && (await blkidProbe(device)).TYPE === undefined,
      },
      {
        // The real mkfs.xfs with each pwrite delayed 20 ms (≈65 writes): killed 300 ms in.
        what: 'mkfs.xfs is half-way through writing the disk (registered disk)',
        register: true,
        setup: () => {
          mkfsSeen = 0;
          shims.slowWrites('mkfs.xfs', 20);
        },
        evidence: async () => {
          if (!shims.started('mkfs.xfs') || shims.finished('mkfs.xfs')) return false;
          mkfsSeen ||= Date.now();
          return Date.now() - mkfsSeen >= 300;
        },
      },
      {
        what: 'mkfs.xfs has finished, the UUID is not read back nor stored (registered disk)',
        register: true,
        setup: () => shims.pause('mkfs.xfs', 'after', 30),
        evidence: async (device, label) => {
          if (!shims.finished('mkfs.xfs')) return false;
          const p = await blkidProbe(device);
          return p.TYPE === 'xfs' && p.LABEL === label;
        },
      },
      {
        what: 'wipefs has erased the disk, mkfs has not started (unregistered candidate)',
        register: false,
        setup: () => shims.pause('mkfs.xfs', 'before', 30),
        evidence: async (device) =>
          shims.started('mkfs.xfs') && (await blkidProbe(device)).TYPE === undefined,
      },
    ];
    for (const [i, c] of cases.entries()) {
      const label = `crash${i + 1}${Math.random().toString(36).slice(2, 6)}`;
      const disk = await labDisk({ sizeBytes: 1024 * MiB, filesystem: 'ext4', label });
      const old = await blkidProbe(disk.device);
      expect(old.TYPE).toBe('ext4');
      if (c.register) {
        const reg = await call(srv.url, token, 'POST', '/disks/external', { device: disk.device, label });
        expect(reg.status, reg.text).toBe(201);
        expect(rowOf(r.root, label)).toMatchObject({ filesystem: 'ext4', fsUuid: old.UUID });
      }
      shims.reset();
      c.setup();
      const confirmation = `ERASE ${disk.device}`;
      const request = inFlight(
        call(srv.url, token, 'POST', `/disks/external/${label}/format`, { confirmation, filesystem: 'xfs' }),
      );
      await waitForKillPoint(c.what, request, () => c.evidence(disk.device, label));
      await srv.kill();
      // The kill came inside the write steps: the tool never finished.
      if (!c.what.startsWith('mkfs.xfs has finished')) expect(shims.finished('mkfs.xfs'), c.what).toBe(false);
      shims.reset();

      srv = await serve(r);
      await expectAnswers(srv, token);
      const probe = await blkidProbe(disk.device);
      const row = rowOf(r.root, label);
      if (c.register) expect(row, 'the registered row is kept').not.toBeNull();
      if (row) {
        // A row may say "unknown" (null), never a filesystem or UUID the disk does not hold.
        if (row.filesystem !== null) expect(probe.TYPE, c.what).toBe(row.filesystem);
        if (row.fsUuid !== null) expect(probe.UUID, c.what).toBe(row.fsUuid);
      }
      // The label still names the disk, the lock is free: the format works again.
      const list = await call<{ disks: Array<{ label: string; attached: boolean; device: string | null }> }>(
        srv.url,
        token,
        'GET',
        '/disks/external',
      );
      expect(
        list.body.disks.find((d) => d.label === label),
        c.what,
      ).toMatchObject({
        attached: true,
        device: disk.device,
      });
      const again = await call(srv.url, token, 'POST', `/disks/external/${label}/format`, {
        confirmation,
        filesystem: 'xfs',
      });
      expect(again.status, `${c.what}: ${again.text}`).toBe(200);
      const fresh = await blkidProbe(disk.device);
      expect(fresh).toMatchObject({ TYPE: 'xfs', LABEL: label, UUID: again.body.fsUuid });
      expect(rowOf(r.root, label)).toMatchObject({ filesystem: 'xfs', fsUuid: fresh.UUID });
      expect(tempLeftovers(r.root)).toEqual([]);
    }
    await srv.stop();
  });

  it('config export: killed after the first bytes; no temporary or partial file is left, a new export works', async () => {
    const r = newRoot();
    let srv = await serve(r);
    const token = await createAdmin(srv.url);
    // 24 MiB of incompressible custom files: the stream cannot finish into the socket buffers.
    const custom = path.join(r.root, 'etc/appliance/big');
    fs.mkdirSync(custom, { recursive: true });
    for (const n of ['a', 'b', 'c'])
      fs.writeFileSync(path.join(custom, `${n}.custom.conf`), randomBytes(8 * MiB));
    expect(tempLeftovers(r.root)).toEqual([]);

    const tempRoot = path.join(r.root, 'var/lib/appliance/tmp');
    let firstBytes = 0;
    let ended = false;
    const url = new URL(srv.url);
    const req = http.request({
      host: url.hostname,
      port: Number(url.port),
      method: 'POST',
      path: '/api/v1/config/export',
      headers: { authorization: `Bearer ${token}`, 'content-length': '0' },
      agent: false,
    });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
    });
    req.end();
    const res = await response;
    expect(res.statusCode).toBe(200);
    res.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      res.once('data', (chunk: Buffer) => {
        firstBytes = chunk.length;
        res.pause(); // stop reading: the server's stream waits on the socket
        resolve();
      }),
    );
    res.on('end', () => {
      ended = true;
    });
    expect(firstBytes).toBeGreaterThan(0);
    // In flight: the snapshot is in the private temp directory and the archive has not ended.
    const exportDirs = fs.readdirSync(tempRoot).filter((n) => n.startsWith('export-'));
    expect(exportDirs).toHaveLength(1);
    expect(fs.readdirSync(path.join(tempRoot, exportDirs[0]!))).toContain('state.db');
    expect(ended).toBe(false);
    await srv.kill();
    res.destroy();
    // The crash left the temp directory behind …
    expect(tempLeftovers(r.root).length).toBeGreaterThan(0);

    srv = await serve(r);
    await expectAnswers(srv, token);
    // … and the restart removed it: nothing temporary or partial anywhere under the root.
    expect(tempLeftovers(r.root)).toEqual([]);

    const again = await fetch(`${srv.url}/api/v1/config/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.status).toBe(200);
    const archive = Buffer.from(await again.arrayBuffer());
    expect(archive.length).toBeGreaterThan(24 * MiB);
    const file = path.join(work, 'export.tar.zst');
    fs.writeFileSync(file, archive);
    const names = (await run('tar', ['--zstd', '-tf', file], { maxBuffer: 16 * MiB })).stdout.split('\n');
    expect(names).toEqual(
      expect.arrayContaining([
        'state.db',
        'custom/big/a.custom.conf',
        'custom/big/b.custom.conf',
        'custom/big/c.custom.conf',
        'manifest.json',
      ]),
    );
    fs.rmSync(file);
    // The finished export removes its own temp directory (right after the last byte).
    const end = Date.now() + 5000;
    while (tempLeftovers(r.root).length > 0 && Date.now() < end) await sleep(50);
    expect(tempLeftovers(r.root)).toEqual([]);
    await srv.stop();
  });
});

/**
 * 02 §11.2: either the row (not pending) and its complete folder, or neither; no pending row, no
 * folder without a row, nothing but the three files in a stack folder.
 */
function expectNoHalfStack(root: string, srv: ServerProcess, name: string): void {
  const stacksDir = path.join(root, 'var/lib/appliance/stacks');
  const rows = query<{ name: string; pending: number; compose: string }>(
    root,
    'select name, pending, compose from stacks order by name',
  );
  expect(
    rows.filter((x) => x.pending !== 0),
    srv.output(),
  ).toEqual([]);
  expect(fs.readdirSync(stacksDir).sort()).toEqual(rows.map((x) => x.name));
  for (const row of rows) {
    const dir = path.join(stacksDir, row.name);
    expect(fs.readdirSync(dir).sort()).toEqual(['.env', 'docker-compose.yml', 'meta.json']);
    expect(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')).toBe(row.compose);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')).name).toBe(row.name);
    expect(fs.statSync(path.join(dir, '.env')).mode & 0o777).toBe(0o600);
  }
  expect(rows.some((x) => x.name === name) || !fs.existsSync(path.join(stacksDir, name))).toBe(true);
}

function rowOf(
  root: string,
  label: string,
): { device: string; filesystem: string | null; fsUuid: string | null } | null {
  return (
    query<{ device: string; filesystem: string | null; fsUuid: string | null }>(
      root,
      'select device, filesystem, fs_uuid as fsUuid from external_disks where label = ?',
      label,
    )[0] ?? null
  );
}

/** Files (non-directories) and directories below each of `dirs` (the directories themselves not counted). */
function count(dirs: string[]): { files: number; dirs: number } {
  const total = { files: 0, dirs: 0 };
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        total.dirs += 1;
        walk(path.join(dir, e.name));
      } else total.files += 1;
    }
  };
  for (const d of dirs) walk(d);
  return total;
}

/** Type, mode, owner, size, link target or content of every entry below `roots`, except `excluded`. */
function fingerprint(roots: string[], excluded: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (excluded.includes(full)) continue;
      const st = fs.lstatSync(full);
      const meta = `${st.mode.toString(8)} ${st.uid}:${st.gid}`;
      if (st.isSymbolicLink()) out.set(full, `link ${meta} ${fs.readlinkSync(full)}`);
      else if (st.isDirectory()) {
        out.set(full, `dir ${meta}`);
        walk(full);
      } else out.set(full, `file ${meta} ${fs.readFileSync(full).toString('base64')}`);
    }
  };
  for (const r of roots) walk(r);
  return out;
}
