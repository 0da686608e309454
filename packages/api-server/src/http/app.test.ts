import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../test-support/sandbox.ts';

describe('a fresh install (setup gate)', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox({ admin: false });
  });
  afterAll(() => s.close());

  it('reports setup required and gates every other route on both listeners', async () => {
    expect((await s.call('GET', '/setup/status', undefined, { token: null })).body).toEqual({
      setupRequired: true,
    });
    for (const via of ['tcp', 'unix'] as const) {
      const r = await s.call('GET', '/users', undefined, { token: null, via });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('setup_required');
    }
  });

  it('checks the body size before the gate', async () => {
    const r = await s.call('POST', '/users', undefined, {
      token: null,
      raw: JSON.stringify({ username: 'x'.repeat(70_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('request_too_large');
  });

  it('creates exactly one admin when two requests race', async () => {
    const before = s.dumpDatabase();
    const [a, b] = await Promise.all([
      s.call('POST', '/setup/admin', { username: 'Admin', password: 'correct horse' }, { token: null }),
      s.call(
        'POST',
        '/setup/admin',
        { username: 'Other', password: 'correct horse' },
        { token: null, via: 'unix' },
      ),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect([a, b].find((r) => r.status === 409)!.body.code).toBe('setup_complete');
    expect(before).not.toBe(s.dumpDatabase());
    const again = await s.call(
      'POST',
      '/setup/admin',
      { username: 'Third', password: 'correct horse' },
      { token: null },
    );
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('setup_complete');
    const rows = s.server.ctx.sqlite
      .prepare("select password_hash from users where role = 'admin'")
      .all() as Array<{ password_hash: string }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.password_hash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    expect(s.dumpDatabase()).not.toContain('correct horse');
    expect(s.logs.join('')).not.toContain('correct horse');
  });
});

describe('order of checks and errors', () => {
  let s: Sandbox;
  let viewerToken: string;
  beforeAll(async () => {
    s = await startSandbox();
    await s.call('POST', '/users', { username: 'vera', role: 'viewer', password: 'viewer password' });
    const basic = Buffer.from('vera:viewer password').toString('base64');
    const t = await s.call(
      'POST',
      '/tokens',
      { name: 'v', role: 'viewer' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    viewerToken = t.body.token;
  });
  afterAll(() => s.close());

  it('answers 401 before 400: no credential with a bad path parameter', async () => {
    const r = await s.call('GET', '/users/not-a-uuid', undefined, { token: null });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 'unauthorized' });
  });

  it('names the Bearer scheme on every 401 (WWW-Authenticate)', async () => {
    for (const [token, headers] of [
      [null, {}],
      ['garbage', {}],
      [`apat_${'0'.repeat(64)}`, {}],
      [null, { authorization: 'Token abc' }],
    ] as const) {
      const r = await s.call('GET', '/users', undefined, { token, headers });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="appliance"');
    }
    expect((await s.call('GET', '/users')).headers.get('www-authenticate')).toBeNull();
    expect((await s.call('GET', '/users', undefined, { token: viewerToken })).status).toBe(200);
    const forbidden = await s.call('POST', '/users', {}, { token: viewerToken });
    expect([forbidden.status, forbidden.headers.get('www-authenticate')]).toEqual([403, null]);
  });

  it('answers 405 with Allow for a known path and a wrong method, 404 for an unknown path', async () => {
    const before = s.dumpDatabase();
    const n = s.logs.length;
    for (const [method, path, allow] of [
      ['DELETE', '/users', 'GET, HEAD, POST'],
      ['PUT', '/setup/status', 'GET, HEAD'],
      ['POST', '/users/3f2a6c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b', 'GET, HEAD, PATCH, DELETE'],
      ['GET', '/shares/media/data/delete', 'POST'],
      ['PATCH', '/openapi.json', 'GET, HEAD'],
      ['OPTIONS', '/tokens', 'GET, HEAD, POST'],
    ] as const) {
      // before any credential: like an unknown path, a wrong method runs no route's checks
      for (const token of [undefined, null]) {
        const r = await s.call(method, path, undefined, token === null ? { token } : {});
        expect([r.status, r.headers.get('allow')], `${method} ${path}`).toEqual([405, allow]);
        expect(r.body).toEqual({
          code: 'method_not_allowed',
          message: `This path does not accept ${method}; it accepts ${allow}. See /api/v1/openapi.json for the routes this service has.`,
          details: { allowed: allow.split(', ') },
        });
      }
    }
    for (const [method, path] of [
      ['DELETE', '/no/such/route'],
      ['GET', '/users/'],
      ['GET', '/shares//data/delete'],
      ['POST', '/users/x/y'],
    ] as const) {
      const r = await s.call(method, path);
      expect([r.status, r.body.code, r.headers.get('allow')], `${method} ${path}`).toEqual([
        404,
        'not_found',
        null,
      ]);
    }
    const lines = s.logs.slice(n).map((l) => JSON.parse(l) as { msg: string; route: string; status: number });
    expect(
      lines.filter((l) => l.msg === 'request' && l.status === 405).every((l) => l.route === '(none)'),
    ).toBe(true);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('answers 401 for malformed and unknown tokens, without a lookup for the malformed', async () => {
    for (const token of ['apat_xyz', `apat_${'0'.repeat(64)}`, 'garbage', `apat_${'A'.repeat(64)}`]) {
      const r = await s.call('GET', '/users', undefined, { token });
      expect(r.status).toBe(401);
    }
    const basicOnGet = await s.call('GET', '/users', undefined, {
      token: null,
      headers: { authorization: 'Basic YWRtaW46eA==' },
    });
    expect(basicOnGet.status).toBe(401);
  });

  it('answers 403 to a viewer on an admin route, before looking at the body', async () => {
    const r = await s.call('POST', '/users', { nonsense: true }, { token: viewerToken });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('forbidden');
    expect((await s.call('GET', '/users', undefined, { token: viewerToken })).status).toBe(200);
  });

  it('answers 400 with details.issues for a bad path parameter, then for a bad body', async () => {
    const p = await s.call('PATCH', '/users/NOT-A-UUID', { role: 'viewer' });
    expect(p.status).toBe(400);
    expect(p.body.details.issues[0].path).toBe('id');
    const b = await s.call('POST', '/user-groups', { name: 42 });
    expect(b.status).toBe(400);
    expect(b.body.code).toBe('bad_request');
    expect(b.body.details.issues[0]).toMatchObject({ path: 'name' });
  });

  it('answers 404 not_found for an unknown route and 413 for a large body', async () => {
    expect((await s.call('GET', '/no/such/route')).body.code).toBe('not_found');
    expect((await s.call('DELETE', '/users')).status).toBe(405);
    const big = await s.call('POST', '/user-groups', undefined, {
      raw: `{"name":"${'a'.repeat(65_600)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
  });

  it('refuses cross-origin browser writes but lets scripts through', async () => {
    const evil = await s.call(
      'POST',
      '/user-groups',
      { name: 'g1' },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(evil.status).toBe(403);
    const site = await s.call(
      'POST',
      '/user-groups',
      { name: 'g1' },
      { headers: { 'sec-fetch-site': 'cross-site' } },
    );
    expect(site.status).toBe(403);
    const same = await s.call(
      'POST',
      '/user-groups',
      { name: 'g1' },
      { headers: { origin: s.url, 'sec-fetch-site': 'same-origin' } },
    );
    expect(same.status).toBe(201);
  });

  it('answers 4xx, never 5xx, to hostile input, and writes nothing', async () => {
    const before = s.dumpDatabase();
    const bodies: Array<[string, string, string | Uint8Array, string?]> = [
      ['POST', '/users', '{"username": "bob",'],
      ['POST', '/users', '[]'],
      ['POST', '/users', 'null'],
      ['POST', '/users', '{"username": ["bob"]}'],
      ['POST', '/users', '{"username": "bob", "admin": true}'],
      ['POST', '/users', `{"username": "${'b'.repeat(5000)}"}`],
      ['POST', '/users', '{"username": "b\\u0000ob"}'],
      ['POST', '/users', '{"username": "bob", "role": "admin"}'],
      ['POST', '/users', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ['POST', '/users', '{"username": "bob"}', 'text/plain'],
      ['POST', '/users', '', 'application/json'],
      ['POST', '/user-groups', '["g"]'],
      ['POST', '/user-groups', '"g"'],
      ['POST', '/user-groups', '42'],
      ['PUT', '/settings', '{"hostname": "Bad_Host", "timezone": "UTC"}'],
      ['PUT', '/settings', '{"hostname": "ok", "timezone": "Mars/Olympus"}'],
      ['POST', '/tokens', '{"name": "t", "role": "root"}'],
      ['POST', '/tokens', '{"name": "t", "role": "admin", "expiresInSeconds": 1}'],
      ['PUT', '/user-groups/00000000-0000-0000-0000-000000000000/members', '{"userIds": ["x"]}'],
      ['DELETE', '/users/..%2f..%2fetc', ''],
      ['GET', '/users/%00', ''],
      ['GET', '/users/%E0%A4%A', ''],
      ['GET', '/audit?limit=0', ''],
      ['GET', '/audit?limit=99999999999999999999', ''],
      ['GET', '/audit?before=-1', ''],
    ];
    for (const [method, path, raw, type] of bodies) {
      const r = await s.call(method, path, undefined, {
        raw,
        headers: { 'content-type': type ?? 'application/json' },
      });
      expect(r.status, `${method} ${path} ${String(raw).slice(0, 40)}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${path} ${String(raw).slice(0, 40)}`).toBeLessThan(500);
      expect(typeof r.body.code).toBe('string');
      expect(typeof r.body.message).toBe('string');
    }
    expect(s.dumpDatabase()).toBe(before);
  });

  it('invalidates a revoked token at once and never stores or logs it raw', async () => {
    const basic = Buffer.from(`admin:${s.adminPassword}`).toString('base64');
    const t = await s.call(
      'POST',
      '/tokens',
      { name: 'ui', role: 'admin' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    expect(t.status).toBe(201);
    expect(t.body.token).toMatch(/^apat_[0-9a-f]{64}$/);
    expect((await s.call('GET', '/users', undefined, { token: t.body.token })).status).toBe(200);
    expect((await s.call('DELETE', `/tokens/${t.body.id}`, undefined, { token: t.body.token })).status).toBe(
      204,
    );
    expect((await s.call('GET', '/users', undefined, { token: t.body.token })).status).toBe(401);
    expect(s.dumpDatabase()).not.toContain(t.body.token.slice(5));
    expect(s.logs.join('')).not.toContain(t.body.token.slice(5));
    expect(s.logs.join('')).not.toContain(s.token.slice(5));
  });

  it('writes one structured log line per request with method, route, status and duration', async () => {
    const n = s.logs.length;
    await s.call('GET', `/users/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`);
    const line = JSON.parse(s.logs[n]!);
    expect(line).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/api/v1/users/:id',
      status: 404,
      listener: 'tcp',
    });
    expect(typeof line.durationMs).toBe('number');
  });
});

describe('an absent body (issue 25)', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox();
  });
  afterAll(() => s.close());

  const empty = (method: string, path: string, type: string | null = 'application/json') =>
    s.call(method, path, undefined, { raw: '', headers: type === null ? {} : { 'content-type': type } });

  it('is 400 bad_request on every route that defines a body, and writes nothing', async () => {
    const before = s.dumpDatabase();
    for (const [method, path] of [
      ['POST', '/templates/jellyfin/install'],
      ['POST', '/templates/jellyfin/preview'],
      ['POST', '/shares/media/data/delete'],
      ['POST', '/stacks'],
      ['POST', '/user-groups'],
      ['PUT', '/settings'],
    ] as const) {
      for (const type of ['application/json', null]) {
        const r = await empty(method, path, type);
        expect([r.status, r.body.code], `${method} ${path} (${type})`).toEqual([400, 'bad_request']);
        expect(r.body.details.issues).toEqual([
          { path: '', message: 'send the body as a JSON object with Content-Type: application/json' },
        ]);
      }
    }
    expect(s.dumpDatabase()).toBe(before);
  });

  it('counts as {} where the contract says so (03 §6 plans, 07 §6.1 format)', async () => {
    for (const path of ['/disks/array/upgrade/plan', '/disks/array/replace/plan']) {
      const r = await empty('POST', path);
      const braces = await s.call('POST', path, {});
      expect([r.status, r.body], path).toEqual([braces.status, braces.body]);
      expect(r.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['mountpoint', 'device']);
    }
    const format = await empty('POST', '/disks/external/backup1/format');
    const braces = await s.call('POST', '/disks/external/backup1/format', {});
    expect(format.body.code).not.toBe('bad_request');
    expect([format.status, format.body]).toEqual([braces.status, braces.body]);
  });

  it('counts as {} for the actions whose body has only defaults or nothing (parity, mount, eject, backups)', async () => {
    for (const path of [
      '/disks/array/parity/sync',
      '/disks/array/parity/scrub',
      '/disks/external/backup1/mount',
      '/disks/external/backup1/eject',
      '/backups/plans/nightly/run',
      '/backups/plans/nightly/drill',
    ]) {
      const r = await empty('POST', path);
      const braces = await s.call('POST', path, {});
      expect(r.body.code, path).not.toBe('bad_request');
      expect([r.status, r.body.code], path).toEqual([braces.status, braces.body.code]);
    }
  });

  it('refuses an array where the body has an object: values: [], env: [], smb: [], webhookHeaders: []', async () => {
    const before = s.dumpDatabase();
    for (const [path, body, issue] of [
      ['/templates/jellyfin/install', { values: [] }, 'values'],
      ['/templates/jellyfin/preview', { values: [] }, 'values'],
      ['/stacks', { name: 'web', compose: 'services: {}\n', env: [] }, 'env'],
      ['/shares', { name: 'docs', smb: [] }, 'smb'],
      [
        '/notifications/channels',
        { name: 'hook', type: 'webhook', webhookUrl: 'https://example.com/h', webhookHeaders: [] },
        'webhookHeaders',
      ],
    ] as const) {
      const r = await s.call('POST', path, body);
      expect([r.status, r.body.code, r.body.details?.issues], path).toEqual([
        400,
        'bad_request',
        [{ path: issue, message: 'must be a JSON object, not an array' }],
      ]);
    }
    expect(s.dumpDatabase()).toBe(before);
  });
});
