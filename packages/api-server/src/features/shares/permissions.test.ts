import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import {
  createGroup,
  createShare,
  createUser,
  rawRequest,
  readSmbConf,
  seedArray,
  smbConfPath,
  smbSection,
  viewerToken,
} from '../../../test-support/shares.ts';

let s: Sandbox;
const id: Record<string, string> = {};
let viewer: string;

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['testparm', 'chattr'] });
  s = await startSandbox();
  seedArray(s);
  for (const name of ['alice', 'Bob', 'carol', 'dave']) id[name] = await createUser(s, name);
  id['family'] = await createGroup(s, 'family', [id['Bob']!, id['carol']!]);
  id['adults'] = await createGroup(s, 'Adults', [id['alice']!]);
  for (const share of ['media', 'backups', 'tv']) await createShare(s, share);
  viewer = await viewerToken(s, 'vic');
});
afterAll(async () => {
  if (s) {
    execFileSync('chattr', ['-i', path.dirname(smbConfPath(s))]);
    await s.close();
  }
});

const putShare = (share: string, users: unknown[], groups: unknown[] = []) =>
  s.call('PUT', `/shares/${share}/permissions`, { users, groups });
const u = (name: string, access: string) => ({ userId: id[name]!, access });
const g = (name: string, access: string) => ({ groupId: id[name]!, access });

/** The database and smb.conf, for "a refused request changes nothing". */
const state = () => ({ db: s.dumpDatabase(), conf: readSmbConf(s) });

describe('06 §9 acceptance scenarios through the real server', () => {
  it('1. share side grants alice read-write; the user side shows it', async () => {
    const r = await putShare('media', [u('alice', 'read-write')]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      users: [{ userId: id['alice'], username: 'alice', access: 'read-write' }],
      groups: [],
    });
    const side = await s.call('GET', `/users/${id['alice']}/permissions`);
    expect(side.body).toEqual({
      userId: id['alice'],
      username: 'alice',
      permissions: [{ shareName: 'media', access: 'read-write' }],
    });
  });

  it('2. user side sets media read-only and backups none; the share side shows read-only', async () => {
    const r = await s.call('PUT', `/users/${id['alice']}/permissions`, {
      permissions: [
        { shareName: 'media', access: 'read-only' },
        { shareName: 'backups', access: 'none' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.permissions).toEqual([
      { shareName: 'backups', access: 'none' },
      { shareName: 'media', access: 'read-only' },
    ]);
    const media = await s.call('GET', '/shares/media/permissions');
    expect(media.body.users).toEqual([{ userId: id['alice'], username: 'alice', access: 'read-only' }]);
    const audit = await s.call('GET', '/audit?limit=1');
    expect(audit.body.entries[0]).toMatchObject({
      operation: 'user_permissions.update',
      target: id['alice'],
      outcome: 'ok',
    });
  });

  it('3. an unknown userId → 404 user_not_found; nothing changes', async () => {
    const before = state();
    const unknown = randomUUID();
    const r = await putShare('media', [u('Bob', 'read-only'), { userId: unknown, access: 'none' }]);
    expect([r.status, r.body.code, r.body.details]).toEqual([404, 'user_not_found', { userId: unknown }]);
    expect(state()).toEqual(before);
  });

  it('3b. an unknown groupId → 404 group_not_found; nothing changes', async () => {
    const before = state();
    const unknown = randomUUID().toUpperCase();
    const r = await putShare('media', [u('Bob', 'read-only')], [{ groupId: unknown, access: 'none' }]);
    expect([r.status, r.body.code, r.body.details]).toEqual([
      404,
      'group_not_found',
      { groupId: unknown.toLowerCase() },
    ]);
    expect(state()).toEqual(before);
  });

  it('4. alice listed twice → 400 duplicate_grant; nothing changes', async () => {
    const before = state();
    const r = await putShare('media', [
      u('alice', 'read-only'),
      { userId: id['alice']!.toUpperCase(), access: 'read-write' },
    ]);
    expect([r.status, r.body.code, r.body.details]).toEqual([
      400,
      'duplicate_grant',
      { kind: 'user', id: id['alice'] },
    ]);
    const groups = await putShare('media', [], [g('family', 'none'), g('family', 'read-only')]);
    expect(groups.body.details).toEqual({ kind: 'group', id: id['family'] });
    const side = await s.call('PUT', `/users/${id['alice']}/permissions`, {
      permissions: [
        { shareName: 'tv', access: 'none' },
        { shareName: 'tv', access: 'none' },
      ],
    });
    expect([side.status, side.body.details]).toEqual([400, { kind: 'share', id: 'tv' }]);
    expect(state()).toEqual(before);
  });

  it('5. an unknown share → 404 share_not_found (both sides); nothing changes', async () => {
    const before = state();
    const r = await putShare('nope', [u('alice', 'read-only')]);
    expect([r.status, r.body.code]).toEqual([404, 'share_not_found']);
    expect((await s.call('GET', '/shares/Media/permissions')).status).toBe(404);
    const side = await s.call('PUT', `/users/${id['alice']}/permissions`, {
      permissions: [
        { shareName: 'media', access: 'none' },
        { shareName: 'MEDIA', access: 'none' },
      ],
    });
    expect([side.status, side.body.code, side.body.details]).toEqual([
      404,
      'share_not_found',
      { shareName: 'MEDIA' },
    ]);
    const noUser = await s.call('PUT', `/users/${randomUUID()}/permissions`, { permissions: [] });
    expect([noUser.status, noUser.body.code]).toEqual([404, 'user_not_found']);
    expect(state()).toEqual(before);
  });

  it('6. full replace: alice rw + bob ro, then only bob none → only bob at none', async () => {
    await putShare('tv', [u('alice', 'read-write'), u('Bob', 'read-only')], [g('family', 'read-only')]);
    const r = await putShare('tv', [u('Bob', 'none')]);
    expect(r.body).toEqual({ users: [{ userId: id['Bob'], username: 'Bob', access: 'none' }], groups: [] });
    expect((await s.call('GET', '/shares/tv/permissions')).body).toEqual(r.body);
    // The user side of alice lost tv too (same rows).
    const alice = await s.call('GET', `/users/${id['alice']}/permissions`);
    expect(alice.body.permissions.map((p: { shareName: string }) => p.shareName)).not.toContain('tv');
  });

  it('7. alice rw, carol none, family {bob, carol} ro → valid users alice bob, write list alice', async () => {
    const r = await putShare(
      'media',
      [u('alice', 'read-write'), u('carol', 'none')],
      [g('family', 'read-only')],
    );
    expect(r.status).toBe(200);
    expect(r.body.users.map((x: { username: string }) => x.username)).toEqual(['alice', 'carol']);
    const section = smbSection(readSmbConf(s), 'media');
    expect(section).toBe(
      [
        '[media]',
        `   path = ${s.root}/mnt/user/media`,
        '   browseable = yes',
        '   read only = yes',
        '   valid users = alice bob',
        '   write list = alice',
        '   create mask = 0664',
        '   directory mask = 0775',
        '',
      ].join('\n'),
    );
    const access = await s.call('GET', '/shares/media/access', undefined, { token: viewer });
    expect(access.body.available).toBe(true);
    const byName = Object.fromEntries(
      access.body.users.map((x: { username: string; access: string; source: string }) => [
        x.username,
        `${x.access}/${x.source}`,
      ]),
    );
    expect(byName).toMatchObject({
      alice: 'read-write/user',
      Bob: 'read-only/group',
      carol: 'none/user',
      dave: 'none/none',
    });
    execFileSync('testparm', ['-s', smbConfPath(s)], { stdio: 'ignore' });
  });

  it('8. a share with no rows is closed (available = no)', async () => {
    await putShare('backups', [], []);
    expect(smbSection(readSmbConf(s), 'backups')).toBe(
      `[backups]\n   path = ${s.root}/mnt/user/backups\n   browseable = yes\n   available = no\n`,
    );
    expect((await s.call('GET', '/shares/backups/access')).body.available).toBe(false);
  });

  it('9. an immutable samba directory → 500 smb_regeneration_failed, grants saved; after the fix the same PUT applies them', async () => {
    const dir = path.dirname(smbConfPath(s));
    const before = readSmbConf(s);
    const body = [u('dave', 'read-write')];
    execFileSync('chattr', ['+i', dir]);
    try {
      const r = await putShare('backups', body, [g('adults', 'read-only')]);
      expect(r.status).toBe(500);
      expect(r.body).toEqual({
        code: 'smb_regeneration_failed',
        message:
          'The access change was saved, but the Samba configuration could not be regenerated, so Samba still enforces the previous access. Fix the cause and save again.',
        details: { reason: 'write_failed' },
      });
      expect(readSmbConf(s)).toBe(before);
      expect(fs.readdirSync(dir)).toEqual(['smb.conf']);
    } finally {
      execFileSync('chattr', ['-i', dir]);
    }
    const saved = await s.call('GET', '/shares/backups/permissions');
    expect(saved.body.users).toEqual([{ userId: id['dave'], username: 'dave', access: 'read-write' }]);
    const audit = await s.call('GET', '/audit?limit=1');
    expect(audit.body.entries[0]).toMatchObject({
      operation: 'share_permissions.update',
      target: 'backups',
      outcome: 'partial',
    });
    const again = await putShare('backups', body, [g('adults', 'read-only')]);
    expect(again.status).toBe(200);
    expect(smbSection(readSmbConf(s), 'backups')).toContain(
      '   valid users = alice dave\n   write list = dave\n',
    );
  });

  it('10. viewer PUT → 403, no token → 401, viewer GET → 200', async () => {
    const before = state();
    const put = await s.call(
      'PUT',
      '/shares/media/permissions',
      { users: [], groups: [] },
      { token: viewer },
    );
    expect([put.status, put.body.code]).toEqual([403, 'forbidden']);
    const anon = await s.call('PUT', '/shares/media/permissions', { users: [], groups: [] }, { token: null });
    expect([anon.status, anon.body.code]).toEqual([401, 'unauthorized']);
    const anonBad = await s.call('PUT', '/shares/..%2f/permissions', { users: 5 }, { token: null });
    expect(anonBad.status).toBe(401);
    const side = await s.call(
      'PUT',
      `/users/${id['alice']}/permissions`,
      { permissions: [] },
      { token: viewer },
    );
    expect(side.status).toBe(403);
    expect((await s.call('GET', '/shares/media/permissions', undefined, { token: viewer })).status).toBe(200);
    expect(
      (await s.call('GET', `/users/${id['alice']}/permissions`, undefined, { token: viewer })).status,
    ).toBe(200);
    expect(state()).toEqual(before);
  });
});

describe('smb.conf follows other changes', () => {
  it('is regenerated after a membership change, a user deletion and a group deletion', async () => {
    await putShare('tv', [], [g('family', 'read-write')]);
    expect(smbSection(readSmbConf(s), 'tv')).toContain('valid users = bob carol\n');
    await s.call('PUT', `/user-groups/${id['family']}/members`, { userIds: [id['carol']] });
    expect(smbSection(readSmbConf(s), 'tv')).toContain('valid users = carol\n');
    const temp = await createUser(s, 'temp');
    await s.call('PUT', `/users/${temp}/permissions`, {
      permissions: [{ shareName: 'tv', access: 'read-only' }],
    });
    expect(smbSection(readSmbConf(s), 'tv')).toContain('valid users = carol temp\n');
    expect((await s.call('DELETE', `/users/${temp}`)).status).toBe(204);
    expect(smbSection(readSmbConf(s), 'tv')).toContain('valid users = carol\n');
    const extra = await createGroup(s, 'extra', [id['dave']!]);
    await putShare('tv', [], [g('family', 'read-write'), { groupId: extra, access: 'read-only' }]);
    expect(smbSection(readSmbConf(s), 'tv')).toContain('valid users = carol dave\n');
    expect((await s.call('DELETE', `/user-groups/${extra}`)).status).toBe(204);
    expect(smbSection(readSmbConf(s), 'tv')).toContain('valid users = carol\n');
  });
});

describe('concurrency', () => {
  it('20 concurrent PUTs to one share end with exactly one requested state, in the rows and in smb.conf', async () => {
    const names = ['alice', 'Bob', 'carol', 'dave'];
    const levels = ['none', 'read-only', 'read-write'] as const;
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      users: names.filter((_, n) => (i >> n) % 2 === 1).map((name, n) => u(name, levels[(i + n) % 3]!)),
      groups: i % 3 === 0 ? [] : [g('family', levels[i % 3]!)],
    }));
    const results = await Promise.all(bodies.map((b) => s.call('PUT', '/shares/media/permissions', b)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const final = (await s.call('GET', '/shares/media/permissions')).body;
    const canon = (p: {
      users: Array<{ userId: string; access: string }>;
      groups: Array<{ groupId: string; access: string }>;
    }) =>
      JSON.stringify({
        users: p.users.map((x) => [x.userId, x.access]).sort(),
        groups: p.groups.map((x) => [x.groupId, x.access]).sort(),
      });
    expect(new Set(bodies.map(canon)).size).toBe(20);
    const matches = bodies.filter((b) => canon(b) === canon(final));
    expect(matches).toHaveLength(1);
    // Each response is its own request's state.
    for (const [i, r] of results.entries()) expect(canon(r.body)).toBe(canon(bodies[i]!));
    // smb.conf reflects the final rows.
    const access = (await s.call('GET', '/shares/media/access')).body as {
      users: Array<{ username: string; access: string }>;
    };
    const readers = access.users.filter((x) => x.access !== 'none').map((x) => x.username.toLowerCase());
    const section = smbSection(readSmbConf(s), 'media')!;
    if (readers.length === 0) expect(section).toContain('available = no');
    else expect(section).toContain(`   valid users = ${readers.sort().join(' ')}\n`);
  });
});

describe('bad input: 4xx with a code, nothing written', () => {
  const badNames = [
    '.hidden',
    '..x',
    '-dash',
    'a%2Fb',
    'a%00',
    '%00',
    'm%D0%B5dia', // Cyrillic е
    '%EF%BD%8Dedia', // fullwidth m
    'media%20',
    'x'.repeat(65),
  ];
  it.each(badNames)('share name %s → 400 bad_request on the name', async (name) => {
    const before = state();
    for (const [method, suffix, body] of [
      ['PUT', '/permissions', '{"users":[],"groups":[]}'],
      ['GET', '/permissions', undefined],
      ['GET', '', undefined],
      ['PUT', '', '{"cacheMode":"array-only","createPolicy":"mfs","smb":{"enabled":true,"browseable":true}}'],
      ['DELETE', '', undefined],
    ] as const) {
      const r = await rawRequest(s, method, `/api/v1/shares/${name}${suffix}`, body);
      expect([r.status, r.body?.code, r.body?.details?.issues?.[0]?.path]).toEqual([
        400,
        'bad_request',
        'name',
      ]);
    }
    const create = await s.call('POST', '/shares', { name: decodeURIComponent(name) });
    expect([create.status, create.body.code]).toEqual([400, 'bad_request']);
    expect(state()).toEqual(before);
  });

  // `..`, `.` and their escapes are dot segments: judged on the raw path (issue 18), they are refused by
  // the route whose `:name` they stand in (400 naming it), or 404 where no such route exists; a real
  // slash or an empty name is no share route (404).
  it('dot segments are refused as the name; a real slash or an empty name is not a share route', async () => {
    const before = state();
    const dots = ['..', '%2e%2e', '%2E%2E', '.', '%2e', '.%2E'];
    for (const dot of dots) {
      const p = `/api/v1/shares/${dot}/permissions`;
      for (const method of ['PUT', 'GET']) {
        const r = await rawRequest(s, method, p, method === 'PUT' ? '{"users":[],"groups":[]}' : undefined);
        expect([r.status, r.body?.code, r.body?.details?.issues?.[0]?.path], `${method} ${p}`).toEqual([
          400,
          'bad_request',
          'name',
        ]);
      }
      // no DELETE /shares/:name/permissions: DELETE /shares/:name must not answer it
      const del = await rawRequest(s, 'DELETE', p);
      expect([del.status, del.body?.code], `DELETE ${p}`).toEqual([404, 'not_found']);
    }
    for (const p of ['/api/v1/shares/a/b/permissions', '/api/v1/shares//permissions']) {
      for (const method of ['PUT', 'GET', 'DELETE']) {
        const r = await rawRequest(s, method, p, method === 'PUT' ? '{"users":[],"groups":[]}' : undefined);
        expect([r.status, r.body?.code], `${method} ${p}`).toEqual([404, 'not_found']);
      }
    }
    expect(state()).toEqual(before);
  });

  const manyIds = (n: number) => Array.from({ length: n }, () => ({ userId: randomUUID(), access: 'none' }));
  const badBodies: Array<[string, unknown, number, string | null]> = [
    ['10,000 UUIDs (over 64 KiB)', { users: manyIds(10_000), groups: [] }, 413, null],
    ['10,000 short ids', { users: Array(10_000).fill('1'), groups: [] }, 400, 'users'],
    ['257 grants', { users: manyIds(257), groups: [] }, 400, 'users'],
    ['users not an array', { users: 'alice', groups: [] }, 400, 'users'],
    ['users an object', { users: {}, groups: [] }, 400, 'users'],
    ['missing groups', { users: [] }, 400, 'groups'],
    ['null body', null, 400, ''],
    ['array body', [], 400, null],
    ['access a number', { users: [{ userId: randomUUID(), access: 1 }], groups: [] }, 400, 'users.0.access'],
    ['bad level', { users: [{ userId: randomUUID(), access: 'write' }], groups: [] }, 400, 'users.0.access'],
    ['userId a number', { users: [{ userId: 5, access: 'none' }], groups: [] }, 400, 'users.0.userId'],
    [
      'userId not a UUID',
      { users: [{ userId: 'alice', access: 'none' }], groups: [] },
      400,
      'users.0.userId',
    ],
    [
      'unknown item field',
      { users: [{ userId: randomUUID(), access: 'none', x: 1 }], groups: [] },
      400,
      'users.0.x',
    ],
    ['unknown top field', { users: [], groups: [], everyone: true }, 400, 'everyone'],
    [
      'group item wrong key',
      { users: [], groups: [{ userId: randomUUID(), access: 'none' }] },
      400,
      'groups.0.groupId',
    ],
  ];
  it.each(badBodies)('share-side body: %s', async (_label, body, status, issuePath) => {
    const before = state();
    const r = await s.call('PUT', '/shares/media/permissions', body);
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(status === 413 ? 'request_too_large' : 'bad_request');
    if (issuePath !== null) {
      expect(r.body.details.issues.map((i: { path: string }) => i.path)).toContain(issuePath);
      expect(r.body.details.issues.length).toBeLessThanOrEqual(20);
    }
    expect(state()).toEqual(before);
  });

  it('user-side bad input: path id, 10,000 share names, bad share names, wrong types', async () => {
    const before = state();
    const cases: Array<[string, unknown, number]> = [
      ['/users/not-a-uuid/permissions', { permissions: [] }, 400],
      ['/users/..%2f..%2fetc/permissions', { permissions: [] }, 400],
      [
        `/users/${id['alice']}/permissions`,
        { permissions: Array(10_000).fill({ shareName: 'a', access: 'none' }) },
        413,
      ],
      [`/users/${id['alice']}/permissions`, { permissions: Array(10_000).fill('a') }, 400],
      [`/users/${id['alice']}/permissions`, { permissions: [{ shareName: '../etc', access: 'none' }] }, 400],
      [`/users/${id['alice']}/permissions`, { permissions: [{ shareName: 'a\u0000', access: 'none' }] }, 400],
      [
        `/users/${id['alice']}/permissions`,
        { permissions: [{ shareName: 'x'.repeat(65), access: 'none' }] },
        400,
      ],
      [`/users/${id['alice']}/permissions`, { permissions: 'media' }, 400],
      [`/users/${id['alice']}/permissions`, { permissions: [{ shareName: 'media' }] }, 400],
      [`/users/${id['alice']}/permissions`, {}, 400],
    ];
    for (const [p, body, status] of cases) {
      const r = await s.call('PUT', p, body);
      expect([p, r.status]).toEqual([p, status]);
      expect(typeof r.body.code).toBe('string');
    }
    const notJson = await s.call('PUT', '/shares/media/permissions', undefined, {
      raw: '{"users": [',
      headers: { 'content-type': 'application/json' },
    });
    expect([notJson.status, notJson.body.code]).toEqual([400, 'bad_request']);
    expect(state()).toEqual(before);
  });
});
