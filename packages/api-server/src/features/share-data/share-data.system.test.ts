/**
 * POST /shares/:name/data/delete through the real server on a lab array of real XFS loop disks
 * (05, issue 5): one parity disk holding snapraid.parity, four data disks and a cache, three shares.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../services/events.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import {
  type LabArray,
  createLabArray,
  fillTree,
  fingerprint,
  removeContents,
  run,
  without,
} from '../../../test-support/share-data.ts';

let s: Sandbox;
let lab: LabArray;
let labDir: string;

const SHARES = [
  ['media', 'array-only'],
  ['appdata', 'cache-only'],
  ['media2', 'array-only'],
] as const;
const MEDIA_BRANCHES = ['disk1/media', 'disk2/media', 'disk3/media'];
const DISKS = ['/mnt/disk1', '/mnt/disk2', '/mnt/disk3', '/mnt/disk4', '/mnt/cache'];

const del = (name: string, body?: unknown, token?: string | null) =>
  s.call('POST', `/shares/${name}/data/delete`, body, token === undefined ? {} : { token });
const real = (logical: string) => lab.real(logical);
const mediaFiles = () => MEDIA_BRANCHES.flatMap((b) => fs.readdirSync(real(`/mnt/${b}`)));
const auditRows = () =>
  s.server.ctx.sqlite
    .prepare(
      "select operation, target, outcome, details from audit_log where operation = 'share_data.delete' order by id",
    )
    .all() as Array<{ operation: string; target: string; outcome: string; details: string }>;
const shareRows = () =>
  JSON.stringify([
    s.server.ctx.sqlite.prepare('select * from shares order by name').all(),
    s.server.ctx.sqlite.prepare('select * from share_user_permissions order by share_name').all(),
  ]);

/** Everything on the disks and the state directory's content file, except the media branches' contents. */
const everythingElse = () => {
  const print = without(fingerprint(real('/mnt')), MEDIA_BRANCHES);
  print.set('state/snapraid.content', fs.readFileSync(real('/var/lib/appliance/snapraid.content'), 'hex'));
  return print;
};
const everything = () => fingerprint(real('/mnt'));

interface Expected {
  files: number;
  dirs: number;
}

/**
 * Resets the shares' files: media on disk1–3 (not disk4), with links to the other share, the parity
 * disk and `/`, and a hard link into appdata; appdata on the cache (and a leftover on disk1); media2
 * on disk1–2; a leftover `media` directory on the cache. Returns what the media delete removes.
 */
function populate(): Expected {
  for (const disk of DISKS) for (const [name] of SHARES) removeContents(real(`${disk}/${name}`));
  fs.rmSync(real('/mnt/disk4/media'), { recursive: true, force: true });
  fs.rmSync(real('/mnt/cache/media'), { recursive: true, force: true });
  const expected = { files: 0, dirs: 0 };
  const add = (c: { files: number; dirs: number }) => {
    expected.files += c.files;
    expected.dirs += c.dirs;
  };
  add(fillTree(real('/mnt/disk1/media'), { dirs: 3, files: 4, size: 5000 }));
  add(fillTree(real('/mnt/disk2/media'), { dirs: 2, files: 5, size: 70000 }));
  add(fillTree(real('/mnt/disk3/media'), { dirs: 2, files: 2 }));
  fillTree(real('/mnt/cache/appdata'), { dirs: 2, files: 3 });
  fillTree(real('/mnt/disk1/appdata'), { dirs: 1, files: 2 });
  fillTree(real('/mnt/disk1/media2'), { dirs: 2, files: 2 });
  fillTree(real('/mnt/disk2/media2'), { dirs: 1, files: 1 });
  fs.mkdirSync(real('/mnt/cache/media'));
  fs.writeFileSync(real('/mnt/cache/media/left-over.txt'), 'from an earlier cache mode');
  // links inside the share: to the other share, the parity disk, the parity file and `/`
  fs.symlinkSync(real('/mnt/disk1/appdata'), real('/mnt/disk1/media/to-appdata'));
  fs.symlinkSync(real('/mnt/parity1'), real('/mnt/disk1/media/dir0/to-parity'));
  fs.symlinkSync(real('/mnt/parity1/snapraid.parity'), real('/mnt/disk2/media/parity-file'));
  fs.symlinkSync('/', real('/mnt/disk3/media/to-root'));
  fs.symlinkSync('/etc', real('/mnt/disk3/media/dir1/out'));
  // a hard link of an appdata file inside media: appdata keeps the data
  fs.linkSync(real('/mnt/disk1/appdata/dir0/sub0/file0.bin'), real('/mnt/disk1/media/hardlink.bin'));
  expected.files += 6;
  return expected;
}

beforeAll(async () => {
  await requirePrerequisites({
    root: true,
    tools: ['losetup', 'mkfs.xfs', 'mount', 'umount', 'findmnt', 'blkid', 'xfs_io', 'chattr'],
  });
  labDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-sharedata-'));
  s = await startSandbox({ lab: true });
  lab = await createLabArray(s, 4, labDir);
  const now = new Date().toISOString();
  const sqlite = s.server.ctx.sqlite;
  for (const [name, mode] of SHARES) {
    sqlite
      .prepare(
        "insert into shares (name, cache_mode, create_policy, smb_enabled, smb_browseable, created_at, updated_at) values (?, ?, 'mfs', 1, 1, ?, ?)",
      )
      .run(name, mode, now, now);
  }
  sqlite
    .prepare(
      "insert into users (id, username, role, password_hash, created_at, updated_at) values (?, 'alice', 'share-only', null, ?, ?)",
    )
    .run('0b9f0a5e-6a43-4c31-9a53-0cb1f4a7e001', now, now);
  sqlite
    .prepare(
      "insert into share_user_permissions (share_name, user_id, access) values ('media', ?, 'read-write')",
    )
    .run('0b9f0a5e-6a43-4c31-9a53-0cb1f4a7e001');
  fs.writeFileSync(real('/mnt/parity1/snapraid.parity'), Buffer.alloc(3 * 1024 * 1024, 0xa5));
  for (const d of ['/mnt/disk1', '/mnt/disk2', '/mnt/disk3', '/mnt/disk4']) {
    fs.writeFileSync(real(`${d}/.snapraid.content`), `content of ${d}`);
  }
  fs.mkdirSync(real('/var/lib/appliance'), { recursive: true });
  fs.writeFileSync(real('/var/lib/appliance/snapraid.content'), 'the main content file');
}, 240_000);

afterAll(async () => {
  await lab?.destroy();
  await s?.close();
  if (labDir) fs.rmSync(labDir, { recursive: true, force: true });
}, 120_000);

describe('POST /shares/:name/data/delete on a lab array', () => {
  let expected: Expected;
  beforeEach(() => {
    expected = populate();
  });

  it("deletes exactly media's files on the disks that hold it; everything else is byte-for-byte unchanged", async () => {
    const before = everythingElse();
    const shares = shareRows();
    const r = await del('media', { confirmation: 'media' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.dryRun).toBe(false);
    expect(
      r.body.branches.map((b: { path: string; present: boolean; status: string }) => [
        b.path,
        b.present,
        b.status,
      ]),
    ).toEqual([
      ['/mnt/disk1/media', true, 'ok'],
      ['/mnt/disk2/media', true, 'ok'],
      ['/mnt/disk3/media', true, 'ok'],
      ['/mnt/disk4/media', false, 'absent'],
    ]);
    expect(r.body.untouched).toEqual([{ disk: '/mnt/cache', path: '/mnt/cache/media' }]);
    expect(r.body.totals.filesDeleted).toBe(expected.files);
    expect(r.body.totals.dirsDeleted).toBe(expected.dirs);
    // disk2 holds 20 files of 70,000 bytes with one link each: at least their size is freed
    expect(r.body.branches[1].bytesFreed).toBeGreaterThanOrEqual(20 * 70000);
    expect(mediaFiles()).toEqual([]);
    for (const b of MEDIA_BRANCHES) expect(fs.lstatSync(real(`/mnt/${b}`)).isDirectory()).toBe(true);
    expect(fs.existsSync(real('/mnt/disk4/media'))).toBe(false);
    expect(everythingElse()).toEqual(before);
    expect(shareRows()).toBe(shares);
    expect((await s.call('GET', '/shares/media')).status).toBe(200);
    const audit = auditRows().at(-1)!;
    expect([audit.target, audit.outcome, JSON.parse(audit.details)]).toEqual(['media', 'ok', r.body.totals]);
  });

  it('the dry run reports exactly what the real run then deletes, deletes nothing and writes no audit row', async () => {
    const before = everything();
    const audits = auditRows().length;
    const dry = await del('media', { confirmation: 'media', dryRun: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.dryRun).toBe(true);
    expect(everything()).toEqual(before);
    expect(auditRows()).toHaveLength(audits);
    const realRun = await del('media', { confirmation: 'media' });
    expect(realRun.status).toBe(200);
    expect({ ...realRun.body, dryRun: true }).toEqual(dry.body);
    expect(realRun.body.totals.filesDeleted).toBe(expected.files);
  });

  it('refuses wrong confirmations, unknown shares and malformed requests, deleting and writing nothing', async () => {
    const before = everything();
    const db = s.dumpDatabase();
    for (const body of [
      { confirmation: 'Media' },
      { confirmation: 'media ' },
      { confirmation: '' },
      {},
      { confirmation: null },
    ]) {
      const r = await del('media', body);
      expect([r.status, r.body.code, r.body.details], JSON.stringify(body)).toEqual([
        409,
        'confirmation_required',
        { expected: 'media' },
      ]);
    }
    expect((await del('nope', { confirmation: 'nope' })).body.code).toBe('share_not_found');
    expect((await del('nope', { confirmation: 'nope' })).status).toBe(404);
    expect((await del('nope', { confirmation: 'x' })).status).toBe(409);
    expect((await del('Media', { confirmation: 'Media' })).status).toBe(404);
    for (const body of [
      { confirmation: 5 },
      { confirmation: true },
      { confirmation: ['media'] },
      { confirmation: { name: 'media' } },
      { confirmation: 'media', dryRun: 'yes' },
      { confirmation: 'media', force: true },
      ['media'],
      'media',
    ]) {
      const r = await del('media', body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, 'bad_request']);
    }
    // over the socket: the path is sent as is (fetch would resolve `%2e%2e` and `.` segments itself)
    for (const name of [
      'a'.repeat(65),
      'me%2Fdia',
      'm%C3%A9dia',
      'media%00',
      '-media',
      'me%20dia',
      '_x',
      '%2e%2e%2fdisk1',
    ]) {
      const r = await s.call(
        'POST',
        `/shares/${name}/data/delete`,
        { confirmation: decodeURIComponent(name) },
        { via: 'unix' },
      );
      expect([r.status, r.body.code], name).toEqual([400, 'bad_request']);
      expect(r.body.details.issues[0].path).toBe('name');
    }
    // dot segments are judged on the raw path (issue 18): refused as the name; an empty name is no route
    for (const name of ['%2e%2e', '%2E', '..', '.', '.%2E']) {
      const r = await s.call(
        'POST',
        `/shares/${name}/data/delete`,
        { confirmation: decodeURIComponent(name) },
        { via: 'unix' },
      );
      expect([r.status, r.body.code, r.body.details?.issues?.[0]?.path], name).toEqual([
        400,
        'bad_request',
        'name',
      ]);
    }
    // an absent body is malformed, not a missing confirmation (issue 25: it answered 409)
    for (const headers of [{ 'content-type': 'application/json' }, {}] as Record<string, string>[]) {
      const r = await s.call('POST', '/shares/media/data/delete', undefined, { raw: '', headers });
      expect([r.status, r.body.code], JSON.stringify(headers)).toEqual([400, 'bad_request']);
    }
    const empty = await s.call('POST', '/shares//data/delete', { confirmation: '' }, { via: 'unix' });
    expect([empty.status, empty.body.code]).toEqual([404, 'not_found']);
    expect((await del('media', { confirmation: 'media' }, null)).status).toBe(401);
    expect((await del('media', { confirmation: 'media' }, 'apat_' + '0'.repeat(64))).status).toBe(401);
    expect(everything()).toEqual(before);
    expect(s.dumpDatabase()).toBe(db);
  });

  it('a disk that left the pool (unpooled, unlisted) is never touched, and its share directory is listed in untouched', async () => {
    const sqlite = s.server.ctx.sqlite;
    const set = sqlite.prepare('update array_disks set removal_state = ? where mountpoint = ?');
    set.run('unpooled', '/mnt/disk2');
    set.run('unlisted', '/mnt/disk3');
    try {
      const kept = [fingerprint(real('/mnt/disk2')), fingerprint(real('/mnt/disk3'))];
      const r = await del('media', { confirmation: 'media' });
      expect(r.status, r.text).toBe(200);
      expect(r.body.branches.map((b: { path: string }) => b.path)).toEqual([
        '/mnt/disk1/media',
        '/mnt/disk4/media',
      ]);
      expect(r.body.untouched).toEqual([
        { disk: '/mnt/cache', path: '/mnt/cache/media' },
        { disk: '/mnt/disk2', path: '/mnt/disk2/media' },
        { disk: '/mnt/disk3', path: '/mnt/disk3/media' },
      ]);
      expect([fingerprint(real('/mnt/disk2')), fingerprint(real('/mnt/disk3'))]).toEqual(kept);
      expect(fs.readdirSync(real('/mnt/disk2/media')).length).toBeGreaterThan(0);
    } finally {
      set.run(null, '/mnt/disk2');
      set.run(null, '/mnt/disk3');
    }
  });

  it('a viewer is refused with 403 and nothing is deleted', async () => {
    const before = everything();
    const user = await s.call('POST', '/users', {
      username: 'viewer1',
      role: 'viewer',
      password: 'viewer password 1',
    });
    expect(user.status, user.text).toBe(201);
    const basic = Buffer.from('viewer1:viewer password 1').toString('base64');
    const tok = await s.call(
      'POST',
      '/tokens',
      { name: 'v', role: 'viewer' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    expect(tok.status, tok.text).toBe(201);
    const r = await del('media', { confirmation: 'media' }, tok.body.token);
    expect([r.status, r.body.code]).toEqual([403, 'forbidden']);
    expect(everything()).toEqual(before);
  });

  it('a pending migration refuses with 409 migration_in_progress; once cleared the delete runs', async () => {
    const before = everything();
    s.server.ctx.sqlite.prepare('update array_settings set migration_pending = 1 where id = 1').run();
    try {
      const r = await del('media', { confirmation: 'media' });
      expect([r.status, r.body.code]).toEqual([409, 'migration_in_progress']);
      expect((await del('media', { confirmation: 'media', dryRun: true })).status).toBe(409);
      expect(everything()).toEqual(before);
    } finally {
      s.server.ctx.sqlite.prepare('update array_settings set migration_pending = 0 where id = 1').run();
    }
    expect((await del('media', { confirmation: 'media' })).status).toBe(200);
    expect(mediaFiles()).toEqual([]);
  });

  it('a branch directory that is itself a symlink is refused before anything is deleted', async () => {
    fs.rmSync(real('/mnt/disk2/media'), { recursive: true });
    fs.symlinkSync(real('/mnt/disk1/appdata'), real('/mnt/disk2/media'));
    try {
      const before = everything();
      const r = await del('media', { confirmation: 'media' });
      expect([r.status, r.body.code, r.body.details]).toEqual([
        409,
        'share_branch_not_directory',
        { disk: '/mnt/disk2', path: '/mnt/disk2/media', reason: 'symlink' },
      ]);
      expect(everything()).toEqual(before);
    } finally {
      fs.unlinkSync(real('/mnt/disk2/media'));
      fs.mkdirSync(real('/mnt/disk2/media'));
    }
  });

  it('a disk that is not mounted, or carries another filesystem, is refused before anything is deleted', async () => {
    fs.mkdirSync(real('/mnt/disk4/media'));
    fs.writeFileSync(real('/mnt/disk4/media/f'), 'x');
    await run('umount', [real('/mnt/disk4')]);
    try {
      const before = everything();
      const r = await del('media', { confirmation: 'media' });
      expect([r.status, r.body.code, r.body.details]).toEqual([
        409,
        'disk_not_mounted',
        { disk: '/mnt/disk4', reason: 'not_mounted' },
      ]);
      await run('mount', ['--bind', real('/mnt/cache'), real('/mnt/disk4')]);
      const wrong = await del('media', { confirmation: 'media' });
      expect([wrong.status, wrong.body.code, wrong.body.details]).toEqual([
        409,
        'disk_not_mounted',
        { disk: '/mnt/disk4', reason: 'wrong_filesystem' },
      ]);
      await run('umount', [real('/mnt/disk4')]);
      expect(everything()).toEqual(before);
    } finally {
      await run('mount', [lab.disks.get('/mnt/disk4')!.device, real('/mnt/disk4')]);
    }
    const r = await del('media', { confirmation: 'media' });
    expect(r.status).toBe(200);
    expect(r.body.branches[3]).toMatchObject({ present: true, filesDeleted: 1 });
  });

  it('a read-only disk: 500 incomplete naming the disk, the rest deleted; a rerun after remounting finishes', async () => {
    const disk2Entries = fs.readdirSync(real('/mnt/disk2/media'), { recursive: true }).length;
    await run('mount', ['-o', 'remount,ro', real('/mnt/disk2')]);
    let first: Awaited<ReturnType<typeof del>>;
    try {
      first = await del('media', { confirmation: 'media' });
    } finally {
      await run('mount', ['-o', 'remount,rw', real('/mnt/disk2')]);
    }
    expect([first.status, first.body.code]).toEqual([500, 'share_data_delete_incomplete']);
    const { report, failures, failureCount } = first.body.details;
    expect(report.branches.map((b: { status: string }) => b.status)).toEqual([
      'ok',
      'read_only',
      'ok',
      'absent',
    ]);
    expect(failureCount).toBeGreaterThanOrEqual(1);
    expect(failures[0]).toMatchObject({ disk: '/mnt/disk2', error: 'EROFS' });
    expect(first.body.message).toMatch(/run the delete again/);
    expect(fs.readdirSync(real('/mnt/disk1/media'))).toEqual([]);
    expect(fs.readdirSync(real('/mnt/disk3/media'))).toEqual([]);
    expect(fs.readdirSync(real('/mnt/disk2/media'), { recursive: true })).toHaveLength(disk2Entries);
    expect(auditRows().at(-1)).toMatchObject({ outcome: 'partial' });
    const rerun = await del('media', { confirmation: 'media' });
    expect(rerun.status, rerun.text).toBe(200);
    // disk2 held 4 × 5 files and one link; nothing of it was deleted the first time
    expect(rerun.body.branches.map((b: { filesDeleted: number }) => b.filesDeleted)).toEqual([0, 21, 0, 0]);
    expect(mediaFiles()).toEqual([]);
  });

  it('an immutable file: 500 listing it, every other entry gone; after clearing the attribute a rerun → 200', async () => {
    const locked = real('/mnt/disk1/media/dir1/sub2/file3.bin');
    await run('chattr', ['+i', locked]);
    let first: Awaited<ReturnType<typeof del>>;
    try {
      first = await del('media', { confirmation: 'media' });
    } finally {
      await run('chattr', ['-i', locked]);
    }
    expect([first.status, first.body.code]).toEqual([500, 'share_data_delete_incomplete']);
    expect(first.body.details.failures).toEqual([
      { disk: '/mnt/disk1', path: '/mnt/disk1/media/dir1/sub2/file3.bin', error: 'EPERM' },
    ]);
    expect(first.body.details.report.branches[0]).toMatchObject({ status: 'incomplete', failureCount: 1 });
    expect(first.body.details.report.totals.filesDeleted).toBe(expected.files - 1);
    expect(fs.readdirSync(real('/mnt/disk1/media'), { recursive: true }).sort()).toEqual([
      'dir1',
      'dir1/sub2',
      'dir1/sub2/file3.bin',
    ]);
    const rerun = await del('media', { confirmation: 'media' });
    expect(rerun.status).toBe(200);
    expect(rerun.body.totals).toMatchObject({ filesDeleted: 1, dirsDeleted: 2 });
    expect(mediaFiles()).toEqual([]);
  });

  it('a filesystem mounted inside the share is neither entered nor removed (other_filesystem)', async () => {
    const inner = real('/mnt/disk3/media/dir0/mounted');
    fs.mkdirSync(inner);
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', inner]);
    try {
      fs.writeFileSync(path.join(inner, 'keep.txt'), 'on another filesystem');
      const dry = await del('media', { confirmation: 'media', dryRun: true });
      expect([dry.status, dry.body.code, dry.body.details.report.dryRun]).toEqual([
        500,
        'share_data_delete_incomplete',
        true,
      ]);
      expect(dry.body.details.failures).toEqual([
        { disk: '/mnt/disk3', path: '/mnt/disk3/media/dir0/mounted', error: 'other_filesystem' },
      ]);
      const r = await del('media', { confirmation: 'media' });
      expect([r.status, r.body.code]).toEqual([500, 'share_data_delete_incomplete']);
      expect(r.body.details.failures).toEqual([
        { disk: '/mnt/disk3', path: '/mnt/disk3/media/dir0/mounted', error: 'other_filesystem' },
      ]);
      expect(fs.readFileSync(path.join(inner, 'keep.txt'), 'utf8')).toBe('on another filesystem');
    } finally {
      await run('umount', [inner]);
    }
    const rerun = await del('media', { confirmation: 'media' });
    expect(rerun.status).toBe(200);
    expect(rerun.body.totals).toMatchObject({ filesDeleted: 0, dirsDeleted: 2 });
  });

  it('a disk that fails mid-way: its branch reports disk_error; after a remount the rerun finishes the job', async () => {
    const big = fillTree(real('/mnt/disk3/media/big'), { dirs: 8, files: 500, size: 0 });
    expect(big.files).toBe(32_000);
    // make the tree durable, so the shutdown below loses nothing but what the delete had not yet logged
    await run('sync', ['-f', real('/mnt/disk3/media')]);
    let shutdown: Promise<unknown> | null = null;
    const stop = s.server.ctx.events.subscribe((e: ServerEvent) => {
      if (e.type === 'progress' && e.data.operation === 'share_data.delete' && shutdown === null) {
        shutdown = run('xfs_io', ['-x', '-c', 'shutdown -f', real('/mnt/disk3')]);
      }
    });
    let first: Awaited<ReturnType<typeof del>>;
    try {
      first = await del('media', { confirmation: 'media' });
    } finally {
      stop();
      await shutdown;
      await run('umount', [real('/mnt/disk3')]);
      await run('mount', [lab.disks.get('/mnt/disk3')!.device, real('/mnt/disk3')]);
    }
    expect([first.status, first.body.code]).toEqual([500, 'share_data_delete_incomplete']);
    const branches = first.body.details.report.branches;
    expect(branches.map((b: { status: string }) => b.status)).toEqual(['ok', 'ok', 'disk_error', 'absent']);
    expect(
      first.body.details.failures.some(
        (f: { disk: string; error: string }) => f.disk === '/mnt/disk3' && f.error === 'EIO',
      ),
    ).toBe(true);
    const rerun = await del('media', { confirmation: 'media' });
    expect(rerun.status, rerun.text).toBe(200);
    // the first run stopped on disk3 and left at least the directories holding what it could not reach
    expect(rerun.body.branches[2].filesDeleted + rerun.body.branches[2].dirsDeleted).toBeGreaterThan(0);
    expect(rerun.body.branches.map((b: { status: string }) => b.status)).toEqual([
      'ok',
      'ok',
      'ok',
      'absent',
    ]);
    expect(
      first.body.details.report.branches[2].filesDeleted + rerun.body.branches[2].filesDeleted,
    ).toBeGreaterThanOrEqual(big.files);
    expect(mediaFiles()).toEqual([]);
  });

  it('a second delete of the same share while one runs → 409 share_busy; the hook reports it running', async () => {
    fillTree(real('/mnt/disk2/media/big'), { dirs: 6, files: 600, size: 0 });
    let second: Promise<Awaited<ReturnType<typeof del>>> | null = null;
    let hookSaw = false;
    const stop = s.server.ctx.events.subscribe((e: ServerEvent) => {
      if (e.type === 'progress' && !e.data.done && second === null) {
        hookSaw =
          s.server.ctx.hooks.shareDataDeleteRunning('media') &&
          s.server.ctx.hooks.shareDataDeleteRunning('MEDIA');
        second = del('media', { confirmation: 'media', dryRun: true });
      }
    });
    const progress: ServerEvent[] = [];
    const stopProgress = s.server.ctx.events.subscribe((e) => progress.push(e));
    const first = await del('media', { confirmation: 'media' });
    stop();
    stopProgress();
    expect(first.status).toBe(200);
    expect(second).not.toBeNull();
    const busy = await second!;
    expect([busy.status, busy.body.code]).toEqual([409, 'share_busy']);
    expect(hookSaw).toBe(true);
    expect(s.server.ctx.hooks.shareDataDeleteRunning('media')).toBe(false);
    const last = progress.filter((e) => e.type === 'progress').at(-1)!;
    expect(last.type === 'progress' && last.data).toMatchObject({
      operation: 'share_data.delete',
      target: 'media',
      done: true,
      progress: first.body.totals,
    });
  });
  it('deletes of different shares run together; the same share → 409 share_busy; an array job → 409 job_running naming the delete (issue 32)', async () => {
    fillTree(real('/mnt/disk2/media/big'), { dirs: 6, files: 600, size: 0 });
    const media2Files = fs.readdirSync(real('/mnt/disk1/media2')).length;
    expect(media2Files).toBeGreaterThan(0);
    let fired = false;
    let same: Promise<Awaited<ReturnType<typeof del>>> | null = null;
    let other: Promise<{ r: Awaited<ReturnType<typeof del>>; mediaStillRunning: boolean }> | null = null;
    let sync: Promise<Awaited<ReturnType<typeof del>>> | null = null;
    const stop = s.server.ctx.events.subscribe((e: ServerEvent) => {
      if (e.type !== 'progress' || e.data.done || e.data.target !== 'media' || fired) return;
      fired = true;
      same = del('media', { confirmation: 'media' });
      other = del('media2', { confirmation: 'media2' }).then((r) => ({
        r,
        mediaStillRunning: s.server.ctx.hooks.shareDataDeleteRunning('media'),
      }));
      sync = s.call('POST', '/disks/array/parity/sync', {});
    });
    const first = await del('media', { confirmation: 'media' });
    stop();
    expect(first.status, first.text).toBe(200);
    expect(fired).toBe(true);
    const sameShare = await same!;
    expect([sameShare.status, sameShare.body.code], sameShare.text).toEqual([409, 'share_busy']);
    const otherShare = await other!;
    expect(otherShare.r.status, otherShare.r.text).toBe(200);
    expect(otherShare.mediaStillRunning).toBe(true);
    expect(fs.readdirSync(real('/mnt/disk1/media2'))).toEqual([]);
    const refused = await sync!;
    expect([refused.status, refused.body.code], refused.text).toEqual([409, 'job_running']);
    expect(refused.body.details).toMatchObject({ type: 'share_data.delete', target: 'media' });
    expect(mediaFiles()).toEqual([]);
    // both holds were released: an exclusive holder (the array jobs' group) can take it again
    expect(() => s.server.ctx.jobs.assertFree(['array'])).not.toThrow();
  });
});
