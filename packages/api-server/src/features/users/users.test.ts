import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

describe('users and groups (08 §4–§5, §16 scenarios 7–8)', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox();
  });
  afterAll(() => s.close());

  it('creates share-only users by default; names are unique ignoring case; host accounts are unavailable', async () => {
    const a = await s.call('POST', '/users', { username: 'alice' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ username: 'alice', role: 'share-only', hasPassword: false });
    expect((await s.call('POST', '/users', { username: 'ALICE' })).body.code).toBe('user_exists');
    expect((await s.call('POST', '/users', { username: 'root' })).body.code).toBe('username_unavailable');
    expect((await s.call('POST', '/users', { username: 'eve', role: 'admin' })).status).toBe(400);
    const admin = (await s.call('GET', '/users')).body.users.find(
      (u: { role: string }) => u.role === 'admin',
    );
    const del = await s.call('DELETE', `/users/${admin.id}`);
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('cannot_modify_admin');
    expect((await s.call('PATCH', `/users/${admin.id}`, { role: 'viewer' })).body.code).toBe(
      'cannot_modify_admin',
    );
  });

  it('lists users by lowercase name and patches role and password', async () => {
    await s.call('POST', '/users', { username: 'Bob', role: 'viewer' });
    const names = (await s.call('GET', '/users')).body.users.map((u: { username: string }) => u.username);
    expect(names).toEqual(
      [...names].sort((x: string, y: string) => x.toLowerCase().localeCompare(y.toLowerCase())),
    );
    const bob = (await s.call('GET', '/users')).body.users.find(
      (u: { username: string }) => u.username === 'Bob',
    );
    const p = await s.call('PATCH', `/users/${bob.id}`, { password: 'bob password 1' });
    expect(p.body.hasPassword).toBe(true);
    expect((await s.call('PATCH', `/users/${bob.id}`, {})).status).toBe(400);
  });

  it('deletes a user with its tokens, memberships and grants; its tokens answer 401 at once', async () => {
    const u = (
      await s.call('POST', '/users', { username: 'carol', role: 'viewer', password: 'carol password' })
    ).body;
    const basic = Buffer.from('carol:carol password').toString('base64');
    const t = (
      await s.call(
        'POST',
        '/tokens',
        { name: 'c', role: 'viewer' },
        { token: null, headers: { authorization: `Basic ${basic}` } },
      )
    ).body;
    const g = (await s.call('POST', '/user-groups', { name: 'family' })).body;
    expect(
      (await s.call('PUT', `/user-groups/${g.id}/members`, { userIds: [u.id] })).body.memberUserIds,
    ).toEqual([u.id]);
    expect((await s.call('GET', '/users', undefined, { token: t.token })).status).toBe(200);
    expect((await s.call('DELETE', `/users/${u.id}`)).status).toBe(204);
    expect((await s.call('GET', '/users', undefined, { token: t.token })).status).toBe(401);
    expect((await s.call('GET', `/user-groups/${g.id}`)).body.memberUserIds).toEqual([]);
    const rows = s.server.ctx.sqlite
      .prepare('select count(*) n from api_tokens where user_id = ?')
      .get(u.id) as { n: number };
    expect(rows.n).toBe(0);
    expect((await s.call('GET', `/users/${u.id}`)).body.code).toBe('user_not_found');
  });

  it('makes a user share-only and drops its tokens in the same change', async () => {
    const u = (
      await s.call('POST', '/users', { username: 'dave', role: 'viewer', password: 'dave password' })
    ).body;
    const basic = Buffer.from('dave:dave password').toString('base64');
    const t = (
      await s.call(
        'POST',
        '/tokens',
        { name: 'd', role: 'viewer' },
        { token: null, headers: { authorization: `Basic ${basic}` } },
      )
    ).body;
    expect((await s.call('PATCH', `/users/${u.id}`, { role: 'share-only' })).body.role).toBe('share-only');
    expect((await s.call('GET', '/users', undefined, { token: t.token })).status).toBe(401);
  });

  it('manages groups: unique names ignoring case, duplicate or unknown members refused with nothing written', async () => {
    const g = await s.call('POST', '/user-groups', { name: '  Media Team  ' });
    expect(g.body.name).toBe('Media Team');
    expect((await s.call('POST', '/user-groups', { name: 'media team' })).body.code).toBe('group_exists');
    expect((await s.call('POST', '/user-groups', { name: 'bad\u0007name' })).status).toBe(400);
    // Unicode: the check and the unique index fold case the same way (a 500 before: JS lowercased
    // 'İ' to 'i̇' for the check, SQLite's lower() left it for the index).
    expect((await s.call('POST', '/user-groups', { name: 'İstanbul' })).status).toBe(201);
    const again = await s.call('POST', '/user-groups', { name: 'İstanbul' });
    expect([again.status, again.body.code]).toEqual([409, 'group_exists']);
    expect((await s.call('POST', '/user-groups', { name: 'İSTANBUL' })).body.code).toBe('group_exists');
    const alice = (await s.call('GET', '/users')).body.users.find(
      (u: { username: string }) => u.username === 'alice',
    );
    const before = s.dumpDatabase();
    expect(
      (await s.call('PUT', `/user-groups/${g.body.id}/members`, { userIds: [alice.id, alice.id] })).status,
    ).toBe(400);
    const unknown = await s.call('PUT', `/user-groups/${g.body.id}/members`, {
      userIds: [alice.id, '00000000-0000-0000-0000-00000000abcd'],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details.userId).toBe('00000000-0000-0000-0000-00000000abcd');
    expect(s.dumpDatabase()).toBe(before);
    expect((await s.call('DELETE', `/user-groups/${g.body.id}`)).status).toBe(204);
    expect((await s.call('DELETE', `/user-groups/${g.body.id}`)).body.code).toBe('group_not_found');
  });

  it('keeps settings with a write-only passphrase and audits without it', async () => {
    const r = await s.call('PUT', '/settings', {
      hostname: 'nas.home',
      timezone: 'Europe/Berlin',
      backupPassphrase: 'a long passphrase',
    });
    expect(r.body).toEqual({ hostname: 'nas.home', timezone: 'Europe/Berlin', backupPassphraseSet: true });
    expect(
      (await s.call('PUT', '/settings', { hostname: 'nas.home', timezone: 'UTC' })).body.backupPassphraseSet,
    ).toBe(true);
    expect(
      (await s.call('PUT', '/settings', { hostname: 'nas.home', timezone: 'UTC', backupPassphrase: null }))
        .body.backupPassphraseSet,
    ).toBe(false);
    expect(
      (await s.call('PUT', '/settings', { hostname: 'nas.home', timezone: 'UTC', backupPassphrase: 'short' }))
        .status,
    ).toBe(400);
    expect(s.dumpDatabase()).not.toContain('a long passphrase');
    const audit = await s.call('GET', '/audit?limit=3');
    expect(audit.body.entries[0].operation).toBe('settings.update');
    expect(JSON.stringify(audit.body)).not.toContain('a long passphrase');
    expect(audit.body.nextBefore).toBe(audit.body.entries[2].id);
    const next = await s.call('GET', `/audit?limit=3&before=${audit.body.nextBefore}`);
    expect(next.body.entries[0].id).toBeLessThan(audit.body.nextBefore);
  });

  it('records the socket caller as actor local', async () => {
    await s.call('POST', '/user-groups', { name: 'from-socket' }, { via: 'unix' });
    const entry = (await s.call('GET', '/audit?limit=1')).body.entries[0];
    expect(entry).toMatchObject({
      actor: 'local',
      operation: 'user_group.create',
      target: 'from-socket',
      outcome: 'ok',
    });
  });
});
