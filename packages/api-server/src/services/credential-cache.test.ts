/**
 * The bearer-token cache (credential-cache.ts) through the real server: once a token's answer is
 * cached, every way of taking the token away — deleting it, logging out with it, deleting or
 * downgrading its owner, a write straight to the database, its expiry, a commit by another
 * connection — is refused on the very next request, never answered from the cache.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '@appliance/common';
import { type Sandbox, startSandbox } from '../../test-support/sandbox.ts';
import { FOREIGN_WRITE_CHECK_MS } from '@appliance/accounts';

/** Real time, moved forward by the test. */
function movableClock(): Clock & { advance(ms: number): void } {
  let shift = 0;
  return { now: () => new Date(Date.now() + shift), advance: (ms) => (shift += ms) };
}

const basic = (u: string, p: string) => ({
  authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`,
});

describe('token cache: a revoked credential is refused on its next request (08 §3.2)', () => {
  const clock = movableClock();
  let s: Sandbox;
  let n = 0;
  beforeAll(async () => {
    s = await startSandbox({ start: { clock } });
  });
  afterAll(() => s.close());
  beforeEach(() => {
    n += 1;
  });

  /** A viewer account with a token made through the API. */
  async function viewer(extra: Record<string, unknown> = {}) {
    const username = `viewer${n}`;
    const user = await s.call('POST', '/users', { username, role: 'viewer', password: 'viewer password' });
    expect(user.status).toBe(201);
    const t = await s.call(
      'POST',
      '/tokens',
      { name: 't', role: 'viewer', ...extra },
      { token: null, headers: basic(username, 'viewer password') },
    );
    expect(t.status).toBe(201);
    return { userId: user.body.id as string, tokenId: t.body.id as string, token: t.body.token as string };
  }

  /** Answers 200 a few times, so that the answer is cached (and the cache is shown in use). */
  async function warm(token: string, route = '/users') {
    for (let i = 0; i < 3; i++) expect((await s.call('GET', route, undefined, { token })).status).toBe(200);
    expect(s.server.auth.cachedCredentials).toBeGreaterThan(0);
  }

  const status = async (token: string, route = '/users') =>
    (await s.call('GET', route, undefined, { token })).status;

  it('a deleted token', async () => {
    const v = await viewer();
    await warm(v.token);
    expect((await s.call('DELETE', `/tokens/${v.tokenId}`)).status).toBe(204);
    expect(await status(v.token)).toBe(401);
  });

  it('a token that logged itself out', async () => {
    const v = await viewer();
    await warm(v.token);
    expect((await s.call('DELETE', `/tokens/${v.tokenId}`, undefined, { token: v.token })).status).toBe(204);
    expect(await status(v.token)).toBe(401);
  });

  it('the token of a deleted user', async () => {
    const v = await viewer();
    await warm(v.token);
    expect((await s.call('DELETE', `/users/${v.userId}`)).status).toBe(204);
    expect(await status(v.token)).toBe(401);
  });

  it('the token of a user made share-only', async () => {
    const v = await viewer();
    await warm(v.token);
    expect((await s.call('PATCH', `/users/${v.userId}`, { role: 'share-only' })).status).toBe(200);
    expect(await status(v.token)).toBe(401);
  });

  it('an owner downgraded by a write that is not a route (the admin made viewer in the database)', async () => {
    const admin = await s.call('POST', '/tokens', { name: 'a', role: 'admin' });
    expect(admin.status).toBe(201);
    const token = admin.body.token as string;
    // An admin-only route: the role check (403) comes before the body check (400 for an admin).
    const asAdmin = async () => (await s.call('POST', '/users', {}, { token })).status;
    await warm(token);
    expect(await asAdmin()).toBe(400);
    const adminId = s.server.ctx.sqlite.prepare("select id from users where role = 'admin'").pluck().get();
    s.server.ctx.sqlite.prepare("update users set role = 'viewer' where id = ?").run(adminId);
    try {
      expect(await asAdmin()).toBe(403);
    } finally {
      s.server.ctx.sqlite.prepare("update users set role = 'admin' where id = ?").run(adminId);
    }
    expect(await asAdmin()).toBe(400);
  });

  it('an expired token', async () => {
    const v = await viewer({ expiresInSeconds: 60 });
    await warm(v.token);
    clock.advance(61_000);
    expect(await status(v.token)).toBe(401);
  });

  it('a token deleted by another connection (noticed within FOREIGN_WRITE_CHECK_MS)', async () => {
    const v = await viewer();
    await warm(v.token);
    const other = new Database(path.join(s.root, 'var/lib/appliance/state.db'));
    try {
      other.pragma('busy_timeout = 5000');
      other.prepare('delete from api_tokens where id = ?').run(v.tokenId);
    } finally {
      other.close();
    }
    clock.advance(FOREIGN_WRITE_CHECK_MS);
    expect(await status(v.token)).toBe(401);
  });

  it('answers a valid token from the cache with the same caller as the database would', async () => {
    const v = await viewer();
    await warm(v.token);
    const me = await s.call('GET', '/tokens', undefined, { token: v.token });
    expect(me.status).toBe(200);
    expect(me.body.tokens.map((t: { id: string }) => t.id)).toEqual([v.tokenId]);
    expect((await s.call('POST', '/users', { username: `x${n}` }, { token: v.token })).status).toBe(403);
  });
});
