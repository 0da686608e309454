import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import {
  createShare,
  createUser,
  readSmbConf,
  seedArray,
  setMigrationPending,
  smbConfPath,
  smbSection,
  viewerToken,
} from '../../../test-support/shares.ts';

let s: Sandbox;
beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['testparm'] });
  s = await startSandbox({ hooks: { shareDataDeleteRunning: (name) => name === 'busy' } });
});
afterAll(async () => {
  await s?.close();
});

const testparmOk = (file: string) => {
  execFileSync('testparm', ['-s', file], { stdio: 'ignore' });
  return true;
};

describe('shares (08 §6) through the real server', () => {
  it('refuses a share without an array, writing nothing', async () => {
    const before = s.dumpDatabase();
    const r = await s.call('POST', '/shares', { name: 'media' });
    expect([r.status, r.body.code]).toEqual([409, 'no_array']);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('creates an array-only share without a cache, with its branch directories, closed in smb.conf', async () => {
    seedArray(s, { dataDisks: 2 });
    const r = await s.call('POST', '/shares', { name: 'media' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'media',
      path: '/mnt/user/media',
      cacheMode: 'array-only',
      createPolicy: 'mfs',
      smb: { enabled: true, browseable: true },
    });
    expect(r.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    for (const disk of ['disk1', 'disk2']) {
      const st = fs.statSync(path.join(s.root, 'mnt', disk, 'media'));
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o775);
      expect(st.uid).toBe(0);
    }
    expect(fs.existsSync(path.join(s.root, 'mnt/parity1/media'))).toBe(false);
    const conf = readSmbConf(s);
    expect(smbSection(conf, 'media')).toBe(
      `[media]\n   path = ${s.root}/mnt/user/media\n   browseable = yes\n   available = no\n`,
    );
    expect(testparmOk(smbConfPath(s))).toBe(true);
    const audit = await s.call('GET', '/audit?limit=1');
    expect(audit.body.entries[0]).toMatchObject({
      operation: 'share.create',
      target: 'media',
      outcome: 'ok',
    });
  });

  it('refuses a name taken ignoring case and a mode that needs a missing cache (scenario 9)', async () => {
    const before = s.dumpDatabase();
    const taken = await s.call('POST', '/shares', { name: 'MEDIA' });
    expect([taken.status, taken.body.code]).toEqual([409, 'share_exists']);
    const cache = await s.call('POST', '/shares', { name: 'x', cacheMode: 'cache-only' });
    expect([cache.status, cache.body.code]).toEqual([409, 'no_cache']);
    expect(s.dumpDatabase()).toBe(before);
    expect(fs.existsSync(path.join(s.root, 'mnt/disk1/MEDIA'))).toBe(false);
    expect(fs.existsSync(path.join(s.root, 'mnt/disk1/x'))).toBe(false);
  });

  it('lists by lowercase name and looks names up exactly', async () => {
    await createShare(s, 'Backups', { createPolicy: 'lfs', smb: { browseable: false } });
    await createShare(s, 'archive');
    const list = await s.call('GET', '/shares');
    expect(list.body.shares.map((x: { name: string }) => x.name)).toEqual(['archive', 'Backups', 'media']);
    expect((await s.call('GET', '/shares/Backups')).body).toMatchObject({
      createPolicy: 'lfs',
      smb: { enabled: true, browseable: false },
    });
    const wrongCase = await s.call('GET', '/shares/backups');
    expect([wrongCase.status, wrongCase.body.code]).toEqual([404, 'share_not_found']);
    const viewer = await viewerToken(s, 'vera');
    expect((await s.call('GET', '/shares', undefined, { token: viewer })).status).toBe(200);
    expect((await s.call('POST', '/shares', { name: 'v' }, { token: viewer })).status).toBe(403);
  });

  it('updates a share (full replace) and drops its section when SMB is disabled', async () => {
    const r = await s.call('PUT', '/shares/archive', {
      cacheMode: 'array-only',
      createPolicy: 'epmfs',
      smb: { enabled: false, browseable: true },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'archive', createPolicy: 'epmfs', smb: { enabled: false } });
    expect(smbSection(readSmbConf(s), 'archive')).toBeNull();
    const partial = await s.call('PUT', '/shares/archive', { cacheMode: 'array-only' });
    expect([partial.status, partial.body.code]).toEqual([400, 'bad_request']);
    const cache = await s.call('PUT', '/shares/archive', {
      cacheMode: 'cache-then-move',
      createPolicy: 'mfs',
      smb: { enabled: true, browseable: true },
    });
    expect([cache.status, cache.body.code]).toEqual([409, 'no_cache']);
    const missing = await s.call('PUT', '/shares/nope', {
      cacheMode: 'array-only',
      createPolicy: 'mfs',
      smb: { enabled: true, browseable: true },
    });
    expect([missing.status, missing.body.code]).toEqual([404, 'share_not_found']);
  });

  it('refuses create and update while a migration is pending (scenario 13)', async () => {
    setMigrationPending(s, true);
    try {
      const before = s.dumpDatabase();
      const c = await s.call('POST', '/shares', { name: 'during' });
      expect([c.status, c.body.code]).toEqual([409, 'migration_in_progress']);
      const u = await s.call('PUT', '/shares/media', {
        cacheMode: 'array-only',
        createPolicy: 'mfs',
        smb: { enabled: true, browseable: true },
      });
      expect([u.status, u.body.code]).toEqual([409, 'migration_in_progress']);
      expect(s.dumpDatabase()).toBe(before);
    } finally {
      setMigrationPending(s, false);
    }
    expect((await s.call('POST', '/shares', { name: 'during' })).status).toBe(201);
  });

  it('refuses to delete a share whose data delete is running', async () => {
    await createShare(s, 'busy');
    const before = s.dumpDatabase();
    const r = await s.call('DELETE', '/shares/busy');
    expect([r.status, r.body.code]).toEqual([409, 'share_busy']);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('deletes the definition and its grants, keeps the files; a re-created share starts closed', async () => {
    const alice = await createUser(s, 'alice');
    await s.call('PUT', '/shares/media/permissions', {
      users: [{ userId: alice, access: 'read-write' }],
      groups: [],
    });
    fs.writeFileSync(path.join(s.root, 'mnt/disk1/media/movie.mkv'), 'data');
    expect(smbSection(readSmbConf(s), 'media')).toContain('write list = alice');
    expect((await s.call('DELETE', '/shares/media')).status).toBe(204);
    expect(fs.readFileSync(path.join(s.root, 'mnt/disk1/media/movie.mkv'), 'utf8')).toBe('data');
    expect(smbSection(readSmbConf(s), 'media')).toBeNull();
    expect((await s.call('GET', `/users/${alice}/permissions`)).body.permissions).toEqual([]);
    expect((await s.call('DELETE', '/shares/media')).status).toBe(404);
    await createShare(s, 'media');
    expect((await s.call('GET', '/shares/media/permissions')).body).toEqual({ users: [], groups: [] });
    expect(smbSection(readSmbConf(s), 'media')).toContain('available = no');
    expect(testparmOk(smbConfPath(s))).toBe(true);
  });

  it('defaults to cache-then-move with a cache and creates the cache branch', async () => {
    seedArray(s, { dataDisks: 1, cache: true });
    const r = await s.call('POST', '/shares', { name: 'photos' });
    expect(r.body.cacheMode).toBe('cache-then-move');
    expect(fs.statSync(path.join(s.root, 'mnt/cache/photos')).isDirectory()).toBe(true);
    expect(fs.statSync(path.join(s.root, 'mnt/disk1/photos')).isDirectory()).toBe(true);
    const only = await s.call('POST', '/shares', { name: 'scratch', cacheMode: 'cache-only' });
    expect(only.status).toBe(201);
    expect(fs.existsSync(path.join(s.root, 'mnt/disk1/scratch'))).toBe(false);
  });

  it('refuses a branch where a symbolic link stands, creating nothing', async () => {
    fs.symlinkSync('/etc', path.join(s.root, 'mnt/disk1/evil'));
    const before = s.dumpDatabase();
    const r = await s.call('POST', '/shares', { name: 'evil' });
    expect([r.status, r.body.code]).toEqual([409, 'share_branch_unsafe']);
    expect(s.dumpDatabase()).toBe(before);
    expect(fs.existsSync(path.join(s.root, 'mnt/cache/evil'))).toBe(false);
  });
});
