import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '@appliance/common';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

const basic = (u: string, p: string) => ({
  authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`,
});

describe('tokens (08 §3, §16 scenarios 4–6)', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox();
    await s.call('POST', '/users', { username: 'vera', role: 'viewer', password: 'viewer password' });
    await s.call('POST', '/users', { username: 'sam', role: 'share-only', password: 'share password' });
  });
  afterAll(() => s.close());

  it('creates a token with Basic credentials (username ignoring case), stores only its SHA-256', async () => {
    const r = await s.call(
      'POST',
      '/tokens',
      { name: 'ui', role: 'admin' },
      { token: null, headers: basic('ADMIN', s.adminPassword) },
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'ui', role: 'admin', username: 'admin', expiresAt: null });
    expect(r.body.token).toMatch(/^apat_[0-9a-f]{64}$/);
    const { createHash } = await import('node:crypto');
    const row = s.server.ctx.sqlite
      .prepare('select token_hash from api_tokens where id = ?')
      .get(r.body.id) as { token_hash: string };
    expect(row.token_hash).toBe(createHash('sha256').update(r.body.token).digest('hex'));
    expect((await s.call('GET', '/users', undefined, { token: r.body.token })).status).toBe(200);
    const list = await s.call('GET', '/tokens');
    expect(JSON.stringify(list.body)).not.toContain(r.body.token);
  });

  it('caps the role by the caller and refuses share-only accounts', async () => {
    const up = await s.call(
      'POST',
      '/tokens',
      { name: 'v', role: 'admin' },
      { token: null, headers: basic('vera', 'viewer password') },
    );
    expect(up.status).toBe(403);
    expect(up.body.code).toBe('token_role_exceeds_caller');
    const v = await s.call(
      'POST',
      '/tokens',
      { name: 'v', role: 'viewer' },
      { token: null, headers: basic('vera', 'viewer password') },
    );
    expect(v.status).toBe(201);
    expect((await s.call('POST', '/users', { username: 'x1' }, { token: v.body.token })).status).toBe(403);
    const sam = await s.call(
      'POST',
      '/tokens',
      { name: 's', role: 'viewer' },
      { token: null, headers: basic('sam', 'share password') },
    );
    expect(sam.status).toBe(403);
    expect(sam.body.code).toBe('share_only_no_api_token');
    // a viewer sees and deletes only its own tokens
    const mine = await s.call('GET', '/tokens', undefined, { token: v.body.token });
    expect(mine.body.tokens.every((t: { username: string }) => t.username === 'vera')).toBe(true);
    const adminTokens = (await s.call('GET', '/tokens')).body.tokens.filter(
      (t: { username: string }) => t.username === 'admin',
    );
    const del = await s.call('DELETE', `/tokens/${adminTokens[0].id}`, undefined, { token: v.body.token });
    expect(del.status).toBe(404);
    expect(del.body.code).toBe('token_not_found');
  });

  it('lets the admin create a token for another account, and caps it by that account', async () => {
    const users = (await s.call('GET', '/users')).body.users as Array<{ id: string; username: string }>;
    const vera = users.find((u) => u.username === 'vera')!;
    expect(
      (await s.call('POST', '/tokens', { name: 'for-vera', role: 'viewer', userId: vera.id })).body.username,
    ).toBe('vera');
    expect(
      (await s.call('POST', '/tokens', { name: 'for-vera', role: 'admin', userId: vera.id })).body.code,
    ).toBe('token_role_exceeds_caller');
    expect(
      (
        await s.call('POST', '/tokens', {
          name: 'x',
          role: 'viewer',
          userId: '00000000-0000-0000-0000-000000000000',
        })
      ).body.code,
    ).toBe('user_not_found');
  });

  it('expires tokens', async () => {
    const r = await s.call('POST', '/tokens', { name: 'short', role: 'viewer', expiresInSeconds: 60 });
    expect(r.status).toBe(201);
    expect(Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)).toBe(60_000);
    s.server.ctx.sqlite
      .prepare('update api_tokens set expires_at = ? where id = ?')
      .run('2000-01-01T00:00:00.000Z', r.body.id);
    expect((await s.call('GET', '/users', undefined, { token: r.body.token })).status).toBe(401);
  });

  it('locks out after five failed Basic logins: the sixth answers 429 with retryAfterSeconds', async () => {
    await s.call('POST', '/users', { username: 'mallory', role: 'viewer', password: 'mallory password' });
    for (let i = 0; i < 5; i++) {
      const r = await s.call(
        'POST',
        '/tokens',
        { name: 'x', role: 'viewer' },
        { token: null, headers: basic('mallory', `wrong${i}`) },
      );
      expect(r.status).toBe(401);
    }
    const sixth = await s.call(
      'POST',
      '/tokens',
      { name: 'x', role: 'viewer' },
      { token: null, headers: basic('mallory', 'mallory password') },
    );
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe('rate_limited');
    expect(sixth.body.details.retryAfterSeconds).toBeGreaterThan(0);
    const unknown = await s.call(
      'POST',
      '/tokens',
      { name: 'x', role: 'viewer' },
      { token: null, headers: basic('nobody', 'x') },
    );
    expect(unknown.status).toBe(429); // same source address is locked too
  });
});

describe('token limit', () => {
  it('refuses the 101st token of an account', async () => {
    const s = await startSandbox();
    try {
      const admin = (await s.call('GET', '/users')).body.users[0];
      const now = new Date().toISOString();
      const insert = s.server.ctx.sqlite.prepare(
        'insert into api_tokens (id, token_hash, user_id, name, role, created_at) values (?, ?, ?, ?, ?, ?)',
      );
      for (let i = 0; i < 99; i++)
        insert.run(
          `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          `h${i}`,
          admin.id,
          `t${i}`,
          'viewer',
          now,
        );
      const r = await s.call('POST', '/tokens', { name: 'one too many', role: 'viewer' });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('token_limit_reached');
    } finally {
      await s.close();
    }
  });
});

describe('lastUsedAt (issue 25)', () => {
  const clock = fixedClock('2026-11-25T10:00:00.000Z');
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox({ start: { clock } });
  });
  afterAll(() => s.close());

  const stored = (id: string) =>
    (
      s.server.ctx.sqlite.prepare('select last_used_at from api_tokens where id = ?').get(id) as
        | { last_used_at: string | null }
        | undefined
    )?.last_used_at;
  const listed = async (id: string) =>
    (await s.call('GET', '/tokens')).body.tokens.find((x: { id: string }) => x.id === id)?.lastUsedAt;

  it('is noted at most once a minute per token, shown by GET /tokens, and written by no request', async () => {
    const t = await s.call('POST', '/tokens', { name: 'script', role: 'viewer' });
    expect(t.body.lastUsedAt).toBeNull();
    expect(await listed(t.body.id)).toBeNull();
    const use = () => s.call('GET', '/users', undefined, { token: t.body.token });
    const db = s.dumpDatabase();
    expect((await use()).status).toBe(200);
    expect(await listed(t.body.id)).toBe('2026-11-25T10:00:00.000Z');
    clock.set('2026-11-25T10:00:59.000Z');
    await use();
    expect(await listed(t.body.id)).toBe('2026-11-25T10:00:00.000Z');
    clock.set('2026-11-25T10:01:00.000Z');
    // a refused request made with a valid token is a use too, and writes nothing either
    expect((await s.call('POST', '/user-groups', { name: 1 }, { token: t.body.token })).status).toBe(403);
    expect(await listed(t.body.id)).toBe('2026-11-25T10:01:00.000Z');
    expect(stored(t.body.id)).toBeNull();
    expect(s.dumpDatabase()).toBe(db);
  });

  it('a revoked token is refused at its next request', async () => {
    clock.set('2026-11-25T11:00:00.000Z');
    const t = await s.call('POST', '/tokens', { name: 'gone', role: 'admin' });
    expect((await s.call('GET', '/users', undefined, { token: t.body.token })).status).toBe(200);
    expect((await s.call('DELETE', `/tokens/${t.body.id}`, undefined, { token: t.body.token })).status).toBe(
      204,
    );
    expect((await s.call('GET', '/users', undefined, { token: t.body.token })).status).toBe(401);
    expect(stored(t.body.id)).toBeUndefined();
  });

  it('is stored by the periodic flush of a running service, without a close', async () => {
    clock.set('2026-11-25T11:30:00.000Z');
    const t = await s.call('POST', '/tokens', { name: 'flushed', role: 'viewer' });
    await s.call('GET', '/users', undefined, { token: t.body.token });
    expect(stored(t.body.id)).toBeNull();
    s.server.auth.usage.startFlushing(50);
    try {
      await expect.poll(() => stored(t.body.id), { timeout: 5000 }).toBe('2026-11-25T11:30:00.000Z');
    } finally {
      s.server.auth.usage.stopFlushing();
    }
  });

  it('is stored when the server closes, and read back after a restart', async () => {
    clock.set('2026-11-25T12:00:00.000Z');
    const t = await s.call('POST', '/tokens', { name: 'kept', role: 'viewer' });
    await s.call('GET', '/users', undefined, { token: t.body.token });
    const root = s.root;
    await s.close({ keepRoot: true });
    s = await startSandbox({ root, admin: false, start: { clock } });
    expect(stored(t.body.id)).toBe('2026-11-25T12:00:00.000Z');
    expect(
      (await s.call('GET', '/tokens', undefined, { token: t.body.token })).body.tokens.find(
        (x: { id: string }) => x.id === t.body.id,
      ).lastUsedAt,
    ).toBe('2026-11-25T12:00:00.000Z');
  });
});
