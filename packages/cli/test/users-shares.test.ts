/**
 * users and shares commands against a real server over its socket: for each a success, a refusal
 * with the API's message (exit 1) and a usage error (exit 2); --json equal to the API's answer.
 */
import { type Sandbox, startSandbox, setUpArray } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance, CLI } from './support.ts';

let s: Sandbox;
const cli = (...args: string[]) => appliance([...args, '--socket', s.socket]);
const api = async (path: string) => (await s.call('GET', path, undefined, { via: 'unix' })).body;

beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
  await setUpArray(s);
});
afterAll(async () => {
  await s?.close();
});

describe('users', () => {
  it('create: success, taken name (1), bad role (2)', async () => {
    const r = await cli('users', 'create', 'alice');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^username: +alice\nrole: +share-only\n/);
    const json = await appliance(
      ['users', 'create', 'bob', '--role', 'viewer', '--password-stdin', '--json', '--socket', s.socket],
      {
        input: 'bob password\n',
      },
    );
    expect(json.code).toBe(0);
    const bob = JSON.parse(json.stdout);
    expect(bob).toEqual(await api(`/users/${bob.id}`));
    expect(bob.hasPassword).toBe(true);
    const taken = await cli('users', 'create', 'ALICE');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^user_exists: .+\n$/);
    const bad = await cli('users', 'create', 'carol', '--role', 'admin');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--role must be one of viewer, share-only');
  });

  it('list: a table, and --json equal to GET /users', async () => {
    const r = await cli('users', 'list');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^USERNAME\s+ROLE\s+PASSWORD\s+CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['admin', 'alice', 'bob']);
    expect(lines[1]).toMatch(/(now|seconds? ago)$/);
    const json = await cli('users', 'list', '--json');
    expect(JSON.parse(json.stdout)).toEqual(await api('/users'));
  });
});

describe('shares', () => {
  it('create: success, taken (1), no cache (1), bad mode (2)', async () => {
    const r = await cli('shares', 'create', 'media');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('path:          /mnt/user/media');
    expect(r.stderr).toContain('appliance shares permissions set media --user NAME=read-write');
    const photos = await cli('shares', 'create', 'photos', '--hidden', '--json');
    expect(JSON.parse(photos.stdout)).toEqual(await api('/shares/photos'));
    expect(JSON.parse(photos.stdout).smb).toEqual({ enabled: true, browseable: false });
    const taken = await cli('shares', 'create', 'MEDIA');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^share_exists: /);
    const noCache = await cli('shares', 'create', 'x', '--cache-mode', 'cache-only');
    expect(noCache.code).toBe(1);
    expect(noCache.stderr).toMatch(/^no_cache: /);
    expect((await cli('shares', 'create', 'y', '--cache-mode', 'ssd')).code).toBe(2);
  });

  it('list: a table and --json', async () => {
    const r = await cli('shares', 'list');
    expect(r.stdout).toMatch(/^NAME\s+CACHE MODE\s+POLICY\s+SMB\s+PATH\s+CREATED\n/);
    expect(r.stdout).toMatch(/\nphotos\s+array-only\s+mfs\s+hidden\s+\/mnt\/user\/photos/);
    expect(JSON.parse((await cli('shares', 'list', '--json')).stdout)).toEqual(await api('/shares'));
  });

  it('permissions set by names, merged with what is there; show; refusals and usage errors', async () => {
    const g = await s.call('POST', '/user-groups', { name: 'family' });
    const alice = (await api('/users')).users.find((u: { username: string }) => u.username === 'alice');
    await s.call('PUT', `/user-groups/${g.body.id}/members`, { userIds: [alice.id] });
    const set = await cli(
      'shares',
      'permissions',
      'set',
      'media',
      '--user',
      'alice=read-write',
      '--group',
      'family=ro',
    );
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/user\s+alice\s+read-write\n/);
    expect(set.stdout).toMatch(/group\s+family\s+read-only\n/);
    const more = await cli('shares', 'permissions', 'set', 'media', '--user', 'bob=read-only', '--json');
    const after = await api('/shares/media/permissions');
    expect(JSON.parse(more.stdout)).toEqual(after);
    expect(
      after.users.map((u: { username: string; access: string }) => `${u.username}=${u.access}`).sort(),
    ).toEqual(['alice=read-write', 'bob=read-only']);
    const show = await cli('shares', 'permissions', 'show', 'media');
    expect(show.stdout).toMatch(/^KIND\s+NAME\s+ACCESS\n/);
    expect(show.stdout).toMatch(
      /Effective access:\nUSER\s+ACCESS\s+FROM\nalice\s+read-write\s+user\nbob\s+read-only\s+user\n/,
    );
    expect(JSON.parse((await cli('shares', 'permissions', 'show', 'media', '--json')).stdout)).toEqual(after);
    const nobody = await cli('shares', 'permissions', 'set', 'media', '--user', 'zed=rw');
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe('user_not_found: No user is named "zed": see appliance users list.\n');
    const unknownShare = await cli('shares', 'permissions', 'show', 'nope');
    expect(unknownShare.code).toBe(1);
    expect(unknownShare.stderr).toMatch(/^share_not_found: /);
    const badAccess = await cli('shares', 'permissions', 'set', 'media', '--user', 'alice=write');
    expect(badAccess.code).toBe(2);
    expect((await cli('shares', 'permissions', 'set', 'media')).code).toBe(2);
    expect(await api('/shares/media/permissions')).toEqual(after);
  });

  it('users permissions show and set by share name', async () => {
    const show = await cli('users', 'permissions', 'show', 'alice');
    expect(show.stdout).toMatch(/^SHARE\s+ACCESS\nmedia\s+read-write\n$/);
    const set = await cli('users', 'permissions', 'set', 'alice', '--share', 'photos=rw');
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/media\s+read-write\n/);
    expect(set.stdout).toMatch(/photos\s+read-write\n/);
    const json = await cli('users', 'permissions', 'show', 'alice', '--json');
    const alice = (await api('/users')).users.find((u: { username: string }) => u.username === 'alice');
    expect(JSON.parse(json.stdout)).toEqual(await api(`/users/${alice.id}/permissions`));
    const replaced = await cli('users', 'permissions', 'set', 'alice', '--share', 'photos=ro', '--replace');
    expect(replaced.stdout).toMatch(/^SHARE\s+ACCESS\nphotos\s+read-only\n$/);
    const unknown = await cli('users', 'permissions', 'set', 'alice', '--share', 'nope=rw');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^share_not_found: /);
    expect((await cli('users', 'permissions', 'set', 'alice', '--share', 'photos')).code).toBe(2);
    expect((await cli('users', 'permissions', 'show', 'nobody')).code).toBe(1);
  });

  it('delete: success, unknown (1), missing name (2)', async () => {
    const r = await cli('shares', 'delete', 'photos');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('its files stay on the disks');
    expect((await api('/shares')).shares.map((x: { name: string }) => x.name)).toEqual(['media']);
    const again = await cli('shares', 'delete', 'photos');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^share_not_found: /);
    expect((await cli('shares', 'delete')).code).toBe(2);
  });
});

describe('audit and events', () => {
  it('audit: newest first; --json is GET /audit; a bad --limit (2)', async () => {
    const r = await cli('audit', '--limit', '2');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^WHEN\s+ACTOR\s+OPERATION\s+TARGET\s+OUTCOME\n(now|.+ago)\s+local\s+share\.delete\s+photos\s+ok\n/,
    );
    expect(JSON.parse((await cli('audit', '--limit', '2', '--json')).stdout)).toEqual(
      await api('/audit?limit=2'),
    );
    expect((await cli('audit', '--limit', '0')).code).toBe(2);
  });

  it('events: prints progress lines until Ctrl-C (exit 0)', async () => {
    let out = '';
    const child = (await import('node:child_process')).spawn(
      process.execPath,
      ['--conditions=@appliance/source', CLI, 'events', '--progress', '--socket', s.socket],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.on('data', (d: Buffer) => (out += d));
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await expect.poll(() => err, { timeout: 10_000 }).toContain('Following events');
    const p = s.server.ctx.events.progress('op-9', 'share_data.delete', 'media', 0);
    p.update({ filesDeleted: 5, bytesFreed: 2048 });
    p.finish({ filesDeleted: 9, bytesFreed: 4096 });
    await expect.poll(() => out, { timeout: 10_000 }).toContain('(done)');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toBe(
      'share_data.delete media: filesDeleted=5 bytesFreed=2 KiB\nshare_data.delete media (done): filesDeleted=9 bytesFreed=4 KiB\n',
    );
  });
});
