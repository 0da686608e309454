/**
 * The mover (issue 37) through the real server on a real lab array: loop disks (parity, two data
 * disks, a cache; xfs), the mergerfs pool, real rsync. 3,000 files with a hard-link pair, a
 * symlink, an xattr and an ACL move to exactly one data disk each with their bytes and metadata,
 * the pool's view unchanged between every batch; files open for writing, already on a data disk,
 * or fitting nowhere stay on the cache and are reported once; the nightly order (mover, then sync)
 * on a driven clock; a service killed outright mid-move loses and doubles nothing.
 */
import { execFile } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLabArray,
  eventually,
  type LabArray,
  processesWith,
  sha256File,
  waitJob,
} from '../../../test-support/lab-array.ts';
import { killAll, type ServerProcess, startServerProcess } from '../../../test-support/server-process.ts';
import { syncJob } from '@appliance/parity';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const SHARE = 'media';
const DISKS = ['/mnt/disk1', '/mnt/disk2'];

interface Facts {
  kind: 'file' | 'symlink' | 'dir';
  sha?: string;
  target?: string;
  uid: number;
  gid: number;
  mode: number;
  mtimeNs?: bigint;
}

/** Every entry below `root` (links not followed): kind, content hash or link target, owner, mode, mtime. */
async function tree(root: string): Promise<Map<string, Facts>> {
  const out = new Map<string, Facts>();
  const walk = async (dir: string, rel: string) => {
    for (const name of (await fs.readdir(dir)).sort()) {
      const full = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = await fs.lstat(full, { bigint: true });
      const base = { uid: Number(st.uid), gid: Number(st.gid), mode: Number(st.mode) };
      if (st.isDirectory()) {
        out.set(r, { kind: 'dir', ...base });
        await walk(full, r);
      } else if (st.isSymbolicLink())
        out.set(r, { kind: 'symlink', target: await fs.readlink(full), ...base });
      else out.set(r, { kind: 'file', sha: await sha256File(full), mtimeNs: st.mtimeNs, ...base });
    }
  };
  await walk(root, '');
  return out;
}

/** What a client sees of the share through the pool: names, kinds, contents (no directory metadata). */
async function poolView(lab: LabArray): Promise<string> {
  const t = await tree(lab.real(`/mnt/user/${SHARE}`));
  return [...t]
    .map(
      ([rel, f]) =>
        `${rel} ${f.kind} ${f.sha ?? f.target ?? ''} ${f.kind === 'dir' ? '' : `${f.mode} ${f.uid}:${f.gid}`}`,
    )
    .join('\n');
}

const getfattr = async (file: string) =>
  (await run('getfattr', ['-h', '-d', '-m', '-', '--absolute-names', file])).stdout
    .split('\n')
    .slice(1)
    .join('\n');
const getfacl = async (file: string) =>
  (await run('getfacl', ['-p', '-n', file])).stdout.split('\n').slice(1).join('\n');

/** Which data disks hold `rel` of the share. */
const holders = (lab: LabArray, rel: string) =>
  DISKS.filter(
    (d) => fsSync.existsSync(lab.real(`${d}/${SHARE}/${rel}`)) || isLink(lab.real(`${d}/${SHARE}/${rel}`)),
  );
const isLink = (p: string) => {
  try {
    return fsSync.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

describe('the mover on a real array', () => {
  let lab: Awaited<ReturnType<typeof createLabArray>>;
  const cache = (rel = '') => lab.real(path.join(`/mnt/cache/${SHARE}`, rel));
  const runMover = async (body: Record<string, unknown> = {}) => {
    const r = await lab.s.call('POST', '/mover/run', body);
    expect(r.status, r.text).toBe(202);
    return waitJob(lab.s, r.body.id);
  };

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 512, dataSizeMiB: 400, cacheSizeMiB: 512 });
    const r = await lab.s.call('POST', '/shares', {
      name: SHARE,
      cacheMode: 'cache-then-move',
      createPolicy: 'mfs',
    });
    expect(r.status, r.text).toBe(201);
    // an array-only and a cache-only share: never touched
    for (const [name, cacheMode] of [
      ['archive', 'array-only'],
      ['scratch', 'cache-only'],
    ])
      expect((await lab.s.call('POST', '/shares', { name, cacheMode })).status).toBe(201);
  }, 300_000);

  afterAll(async () => {
    await killAll();
    await lab?.destroy();
  }, 120_000);

  it('moves 3,000 files (hard link, symlink, xattr, ACL) to exactly one data disk each, bytes and metadata kept', async () => {
    const mtime = new Date('2025-03-04T05:06:07.123Z');
    for (let i = 0; i < 30; i++)
      for (let j = 0; j < 10; j++) {
        const dir = cache(`d${i}/s${j}`);
        await fs.mkdir(dir, { recursive: true });
        for (let k = 0; k < 10; k++) {
          const f = path.join(dir, `f${k}.bin`);
          await fs.writeFile(f, `${i}-${j}-${k} `.repeat(50 + k));
          await fs.chmod(f, k % 2 ? 0o640 : 0o664);
          if (k === 3) await fs.chown(f, 1234, 100);
          await fs.utimes(f, mtime, mtime);
        }
      }
    await fs.writeFile(cache('d0/linked-a'), 'one inode, two names');
    await fs.link(cache('d0/linked-a'), cache('d1/linked-b'));
    await fs.symlink('../d0/s0/f0.bin', cache('d2/link'));
    await fs.writeFile(cache('d3/xattr.txt'), 'with an extended attribute');
    await run('setfattr', ['-n', 'user.origin', '-v', 'camera-7', cache('d3/xattr.txt')]);
    await fs.writeFile(cache('d4/acl.txt'), 'with an ACL');
    await run('setfacl', ['-m', 'u:1234:rw', cache('d4/acl.txt')]);
    await fs.mkdir(cache('empty/inner'), { recursive: true });
    await fs.writeFile(lab.real('/mnt/cache/scratch/stays.txt'), 'cache-only');
    const before = await tree(cache());
    const xattrBefore = await getfattr(cache('d3/xattr.txt'));
    const aclBefore = await getfacl(cache('d4/acl.txt'));
    expect(xattrBefore).toContain('user.origin="camera-7"');
    expect(aclBefore).toContain('user:1234:rw-');
    const files = [...before].filter(([, f]) => f.kind !== 'dir');
    expect(files.length).toBe(3005);
    const view = await poolView(lab);
    const views: string[] = [];
    lab.s.server.ctx.hooks.moverBeforeBatch = async () => {
      views.push(await poolView(lab));
    };
    lab.s.server.ctx.hooks.moverBatch = { maxFiles: 1000, maxBytes: 256 * MiB };

    const job = await runMover();
    lab.s.server.ctx.hooks.moverBeforeBatch = undefined;
    lab.s.server.ctx.hooks.moverBatch = undefined;
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ movedFiles: 3005, skippedCount: 0, shares: [SHARE] });
    // the pool showed the same share between every batch and after
    expect(views.length).toBeGreaterThanOrEqual(4);
    for (const v of views) expect(v).toBe(view);
    expect(await poolView(lab)).toBe(view);

    for (const [rel, f] of files) {
      const on = holders(lab, rel);
      expect(on, rel).toHaveLength(1);
      const there = await fs.lstat(lab.real(`${on[0]}/${SHARE}/${rel}`), { bigint: true });
      expect([Number(there.uid), Number(there.gid), Number(there.mode)], rel).toEqual([f.uid, f.gid, f.mode]);
      if (f.kind === 'file') {
        expect(await sha256File(lab.real(`${on[0]}/${SHARE}/${rel}`)), rel).toBe(f.sha);
        expect(there.mtimeNs, rel).toBe(f.mtimeNs);
      } else expect(await fs.readlink(lab.real(`${on[0]}/${SHARE}/${rel}`))).toBe(f.target);
    }
    const [a] = holders(lab, 'd0/linked-a');
    expect(holders(lab, 'd1/linked-b')).toEqual([a]);
    const ia = await fs.stat(lab.real(`${a}/${SHARE}/d0/linked-a`));
    const ib = await fs.stat(lab.real(`${a}/${SHARE}/d1/linked-b`));
    expect([ib.ino, ib.nlink]).toEqual([ia.ino, 2]);
    const [x] = holders(lab, 'd3/xattr.txt');
    expect(await getfattr(lab.real(`${x}/${SHARE}/d3/xattr.txt`))).toBe(xattrBefore);
    const [c] = holders(lab, 'd4/acl.txt');
    expect(await getfacl(lab.real(`${c}/${SHARE}/d4/acl.txt`))).toBe(aclBefore);
    // directories made with the cache's metadata; both disks used (mfs)
    const dirMode = before.get('d0/s0')!.mode;
    expect((await fs.stat(lab.real(`${holders(lab, 'd0/s0/f0.bin')[0]}/${SHARE}/d0/s0`))).mode).toBe(dirMode);
    expect(new Set(files.map(([rel]) => holders(lab, rel)[0])).size).toBe(2);
    // the cache share is empty (its top directory kept), the cache-only share untouched
    expect(await fs.readdir(cache())).toEqual([]);
    expect(await fs.readFile(lab.real('/mnt/cache/scratch/stays.txt'), 'utf8')).toBe('cache-only');
    for (const d of DISKS) expect(fsSync.existsSync(lab.real(`${d}/.appliance-mover`))).toBe(false);

    const status = await lab.s.call('GET', '/mover');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      configured: true,
      shares: [SHARE],
      lastRun: { jobId: job.id, state: 'succeeded', movedFiles: 3005, skippedCount: 0, skipped: [] },
      settings: { enabled: true, time: '02:00', verify: 'size-mtime' },
    });
    expect(status.body.nextRun).toMatch(/T02:00:00\.000Z$/);
    // thousands of small files outgrow this lab's parity disk (a 256 KiB SnapRAID block each)
    for (const d of DISKS) await run('sh', ['-c', 'rm -rf -- "$1"/*', 'rm', lab.real(`${d}/${SHARE}`)]);
  }, 600_000);

  it('skips a file open for writing and a path already on a data disk, keeps both copies, raises one event', async () => {
    await fs.mkdir(cache('docs'), { recursive: true });
    await fs.writeFile(cache('docs/open.txt'), 'being written');
    const fd = fsSync.openSync(cache('docs/open.txt'), 'a');
    await fs.writeFile(cache('docs/dup.txt'), 'the cache copy');
    await fs.mkdir(lab.real(`/mnt/disk1/${SHARE}/docs`), { recursive: true });
    await fs.writeFile(lab.real(`/mnt/disk1/${SHARE}/docs/dup.txt`), 'the array copy');
    await fs.writeFile(cache('docs/ok.txt'), 'moves');
    try {
      const job = await runMover({ verify: 'sha256' });
      expect(job.state).toBe('succeeded');
      expect(job.result).toMatchObject({
        movedFiles: 1,
        skippedCount: 2,
        verify: 'sha256',
        skippedByReason: { open_for_writing: 1, exists_on_array: 1 },
        skipped: [
          { share: SHARE, path: 'docs/dup.txt', reason: 'exists_on_array' },
          { share: SHARE, path: 'docs/open.txt', reason: 'open_for_writing' },
        ],
      });
    } finally {
      fsSync.closeSync(fd);
    }
    expect(await fs.readFile(cache('docs/open.txt'), 'utf8')).toBe('being written');
    expect(holders(lab, 'docs/open.txt')).toEqual([]);
    expect(await fs.readFile(cache('docs/dup.txt'), 'utf8')).toBe('the cache copy');
    expect(await fs.readFile(lab.real(`/mnt/disk1/${SHARE}/docs/dup.txt`), 'utf8')).toBe('the array copy');
    expect(holders(lab, 'docs/ok.txt')).toHaveLength(1);
    const alerts = await lab.s.call('GET', '/notifications/alerts');
    const mover = alerts.body.alerts.filter(
      (a: { eventType: string }) => a.eventType === 'mover_skipping_files',
    );
    expect(mover).toHaveLength(1);
    expect(mover[0].message).toContain('1 open for writing, 1 already on a data disk');
    expect(mover[0].message).toContain(`/mnt/user/${SHARE}/docs/dup.txt`);
    const status = await lab.s.call('GET', '/mover');
    expect(status.body.lastRun.skipped).toHaveLength(2);
    await fs.rm(cache('docs'), { recursive: true });
    await fs.rm(lab.real(`/mnt/disk1/${SHARE}/docs`), { recursive: true });
  }, 300_000);

  it('a full data disk sends the file to the next by policy (ff); no disk with room: skipped', async () => {
    const r = await lab.s.call('PUT', `/shares/${SHARE}`, {
      cacheMode: 'cache-then-move',
      createPolicy: 'ff',
      smb: { enabled: true, browseable: true },
    });
    expect(r.status, r.text).toBe(200);
    const leave = async (disk: string, bytes: number) => {
      const st = await fs.statfs(lab.real(disk));
      const fill = st.bavail * st.bsize - bytes;
      await run('fallocate', ['-l', String(fill), lab.real(`${disk}/filler.bin`)]);
    };
    try {
      // minfreespace of this array: 400 MiB / 20 = 20 MiB; disk1 keeps 30 MiB, the file needs 15
      await leave('/mnt/disk1', 30 * MiB);
      await fs.writeFile(cache('big1.bin'), Buffer.alloc(15 * MiB, 1));
      let job = await runMover();
      expect(job.result).toMatchObject({ movedFiles: 1, skippedCount: 0 });
      expect(holders(lab, 'big1.bin')).toEqual(['/mnt/disk2']);
      await leave('/mnt/disk2', 30 * MiB);
      await fs.writeFile(cache('big2.bin'), Buffer.alloc(15 * MiB, 2));
      job = await runMover();
      expect(job.result).toMatchObject({
        movedFiles: 0,
        skippedCount: 1,
        skipped: [{ share: SHARE, path: 'big2.bin', reason: 'no_space' }],
      });
      expect(holders(lab, 'big2.bin')).toEqual([]);
      expect((await fs.stat(cache('big2.bin'))).size).toBe(15 * MiB);
    } finally {
      for (const d of DISKS) await fs.rm(lab.real(`${d}/filler.bin`), { force: true });
      await fs.rm(cache('big2.bin'), { force: true });
      await fs.rm(lab.real(`/mnt/disk2/${SHARE}/big1.bin`), { force: true });
    }
  }, 300_000);

  it('cancelled between files: what moved stays moved, the rest stays on the cache, nothing on both', async () => {
    const r = await lab.s.call('PUT', `/shares/${SHARE}`, {
      cacheMode: 'cache-then-move',
      createPolicy: 'mfs',
      smb: { enabled: true, browseable: true },
    });
    expect(r.status, r.text).toBe(200);
    // more names than one batch holds: at least two batches, whatever the disks' free space
    const names = Array.from({ length: 300 }, (_, i) => `cancel/f${i}.txt`);
    lab.s.server.ctx.hooks.moverBatch = { maxFiles: 100, maxBytes: 256 * MiB };
    await fs.mkdir(cache('cancel'), { recursive: true });
    for (const n of names) await fs.writeFile(cache(n), n);
    // cancelled before the second batch
    lab.s.server.ctx.hooks.moverBeforeBatch = async (index) => {
      if (index !== 1) return;
      const job = lab.s.server.ctx.jobs.running().find((j) => j.type === 'mover.run')!;
      cancelStatus = (await lab.s.call('DELETE', `/jobs/${job.id}`)).status;
    };
    let movedByJob = -1;
    let cancelStatus = 0;
    try {
      const job = await runMover();
      expect([cancelStatus, job.state]).toEqual([202, 'cancelled']);
      movedByJob = (job.result as { movedFiles: number }).movedFiles;
    } finally {
      lab.s.server.ctx.hooks.moverBeforeBatch = undefined;
      lab.s.server.ctx.hooks.moverBatch = undefined;
    }
    const moved = names.filter((n) => holders(lab, n).length === 1);
    const kept = names.filter((n) => fsSync.existsSync(cache(n)));
    expect(moved.length).toBe(movedByJob);
    expect(moved.length).toBeGreaterThan(0);
    expect(kept.length).toBe(names.length - moved.length);
    expect(moved.filter((n) => kept.includes(n))).toEqual([]);
    expect((await lab.s.call('GET', '/mover')).body.lastRun).toMatchObject({
      state: 'cancelled',
      movedFiles: movedByJob,
    });
    const again = await runMover();
    expect(again.result).toMatchObject({ movedFiles: kept.length, skippedCount: 0 });
    expect(fsSync.existsSync(cache('cancel'))).toBe(false);
    for (const d of DISKS) await fs.rm(lab.real(`${d}/${SHARE}/cancel`), { recursive: true, force: true });
  }, 300_000);

  it('nightly: the mover runs before the parity sync when both are due (driven clock)', async () => {
    await fs.writeFile(cache('nightly.txt'), 'moved before the sync');
    lab.clock.setTo(new Date(Date.now() + 2 * 86_400_000));
    await lab.s.server.ctx.scheduler.tick();
    const mover = lab.s.server.ctx.jobs.running().find((j) => j.type === 'mover.run');
    expect(mover, 'the mover started first').toBeDefined();
    expect(lab.s.server.ctx.jobs.running().some((j) => j.type === 'parity.sync')).toBe(false);
    expect((await waitJob(lab.s, mover!.id)).state).toBe('succeeded');
    await lab.s.server.ctx.scheduler.tick();
    const sync = lab.s.server.ctx.jobs.latest(syncJob);
    expect(sync?.trigger).toBe('schedule');
    expect(Date.parse(sync!.startedAt!)).toBeGreaterThanOrEqual(
      Date.parse(lab.s.server.ctx.jobs.get(mover!.id)!.endedAt!),
    );
    const synced = await waitJob(lab.s, sync!.id);
    expect(synced.state, JSON.stringify(synced.error)).toBe('succeeded');
    expect(holders(lab, 'nightly.txt')).toHaveLength(1);
  }, 300_000);

  describe('a service killed outright mid-move', () => {
    let proc: ServerProcess | null = null;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${proc!.url}/api/v1${p}`, {
        method,
        headers: {
          connection: 'close',
          authorization: `Bearer ${lab.s.token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const start = async () => {
      proc = await startServerProcess({ root: lab.s.root, socket: path.join(lab.work, 'svc.sock') });
    };

    it('SIGKILL of the service and its rsync mid-batch: nothing lost or doubled, the next run completes', async () => {
      const sums = new Map<string, string>();
      for (let i = 0; i < 120; i++) {
        const rel = `big/part${i % 4}/chunk${i}.bin`;
        await fs.mkdir(path.dirname(cache(rel)), { recursive: true });
        const buf = Buffer.alloc(2 * MiB, i);
        buf.write(`chunk ${i}`);
        await fs.writeFile(cache(rel), buf);
        sums.set(rel, await sha256File(cache(rel)));
      }
      const view = await poolView(lab);
      await fs.writeFile(
        path.join(lab.s.root, 'etc/appliance/config.toml'),
        `[lab]\nenabled = true\nimageDir = ${JSON.stringify(lab.imageDir)}\n`,
      );
      await lab.s.close({ keepRoot: true });
      await start();
      const r = await call('POST', '/mover/run', {});
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const id = r.body.id as string;
      // some files done, rsync in the middle of others
      await eventually(async () => {
        const done = [...sums.keys()].filter((rel) => holders(lab, rel).length > 0).length;
        return done >= 5 && (await processesWith(cache())).length > 0 ? true : undefined;
      }, 120_000);
      await proc!.kill(); // SIGKILL to the service and every process below it
      await eventually(async () => ((await processesWith(cache())).length === 0 ? true : undefined));

      await start();
      const after = await eventually(async () => {
        const j = (await call('GET', `/jobs/${id}`)).body;
        return j.state === 'interrupted' && /settled|between two files/.test(j.error.message) ? j : undefined;
      }, 60_000);
      // killed inside a batch: its journal was settled by the restarted service
      expect(after.error.code).toBe('interrupted');
      expect(after.error.message).toMatch(/batch it was moving was settled/);
      expect(after.error.details.settled.moved).toBeGreaterThanOrEqual(5);
      // every file whole on exactly one side
      for (const [rel, sum] of sums) {
        const on = [
          ...(fsSync.existsSync(cache(rel)) ? [cache(rel)] : []),
          ...holders(lab, rel).map((d) => lab.real(`${d}/${SHARE}/${rel}`)),
        ];
        expect(on, rel).toHaveLength(1);
        expect(await sha256File(on[0]!), rel).toBe(sum);
      }
      for (const d of DISKS) expect(fsSync.existsSync(lab.real(`${d}/.appliance-mover`))).toBe(false);
      expect(await poolView(lab)).toBe(view);

      const again = await eventually(async () => {
        const x = await call('POST', '/mover/run', {});
        return x.status === 202 ? x : undefined;
      }, 60_000);
      const ended = await eventually(async () => {
        const j = (await call('GET', `/jobs/${again.body.id}`)).body;
        return j.state === 'running' ? undefined : j;
      }, 300_000);
      expect(ended.state).toBe('succeeded');
      for (const [rel, sum] of sums) {
        const on = holders(lab, rel);
        expect(on, rel).toHaveLength(1);
        expect(fsSync.existsSync(cache(rel))).toBe(false);
        expect(await sha256File(lab.real(`${on[0]}/${SHARE}/${rel}`))).toBe(sum);
      }
      expect(await fs.readdir(cache())).toEqual([]);
      expect(await poolView(lab)).toBe(view);
      await proc!.stop();
    }, 600_000);
  });
});
