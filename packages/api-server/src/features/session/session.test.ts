/**
 * Browser sessions through the real server (docs/decisions/web-ui.md): the cookie's attributes,
 * the auth matrix (cookie read, cookie write with and without the UI header and same origin, a
 * cross-site form post, sign-out, idle and absolute expiry on a manual clock) and Bearer tokens
 * unchanged beside them.
 */
import { fixedClock } from '@appliance/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '@appliance/accounts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

const clock = fixedClock('2026-03-01T10:00:00.000Z');
let s: Sandbox;
beforeAll(async () => {
  s = await startSandbox({ start: { clock } });
});
afterAll(async () => {
  await s?.close();
});

/** The headers the web UI sends with every write (same origin). */
const ui = (url = s.url) => ({ 'x-appliance-ui': '1', origin: url, 'sec-fetch-site': 'same-origin' });

async function signIn(username = 'admin', password = s.adminPassword): Promise<string> {
  const r = await s.call('POST', '/session', { username, password }, { token: null, headers: ui() });
  expect(r.status, r.text).toBe(200);
  const set = r.headers.get('set-cookie')!;
  return set.split(';')[0]!;
}

describe('POST /session', () => {
  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie (no Secure over plain HTTP) and answers who', async () => {
    const r = await s.call(
      'POST',
      '/session',
      { username: 'admin', password: s.adminPassword },
      { token: null, headers: ui() },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ username: 'admin', role: 'admin', via: 'session' });
    const set = r.headers.get('set-cookie')!;
    expect(set).toMatch(
      /^appliance_session=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/,
    );
    // only the secret's hash is stored
    expect(s.dumpDatabase()).not.toContain(set.split(';')[0]!.split('=')[1]!);
  });

  it('sign-in without the UI header or from another site is refused and opens no session', async () => {
    const before = s.dumpDatabase();
    const body = { username: 'admin', password: s.adminPassword };
    const noHeader = await s.call('POST', '/session', body, {
      token: null,
      headers: { origin: s.url, 'sec-fetch-site': 'same-origin' },
    });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.code).toBe('cross_site_refused');
    const cross = await s.call('POST', '/session', body, {
      token: null,
      headers: { 'x-appliance-ui': '1', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(cross.status).toBe(403);
    expect(s.dumpDatabase()).toBe(before);
  });
});

describe('the auth matrix of a session cookie', () => {
  it('reads with the cookie alone', async () => {
    const cookie = await signIn();
    const r = await s.call('GET', '/users', undefined, { token: null, headers: { cookie } });
    expect(r.status, r.text).toBe(200);
    const who = await s.call('GET', '/session', undefined, { token: null, headers: { cookie } });
    expect(who.body).toEqual({ username: 'admin', role: 'admin', via: 'session' });
  });

  it('writes with the UI header from the same origin', async () => {
    const cookie = await signIn();
    const r = await s.call(
      'POST',
      '/users',
      { username: 'carol', role: 'viewer', password: 'carol password' },
      { token: null, headers: { cookie, ...ui() } },
    );
    expect(r.status, r.text).toBe(201);
  });

  it('refuses a cookie write without the UI header: 403 cross_site_refused, nothing written', async () => {
    const cookie = await signIn();
    const before = s.dumpDatabase();
    const r = await s.call(
      'POST',
      '/users',
      { username: 'dave', role: 'viewer', password: 'dave password' },
      { token: null, headers: { cookie, origin: s.url, 'sec-fetch-site': 'same-origin' } },
    );
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'cross_site_refused' });
    expect(r.body.message).toMatch(/web UI/);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('refuses a cookie write with the header but no proof of origin', async () => {
    const cookie = await signIn();
    const before = s.dumpDatabase();
    const r = await s.call(
      'POST',
      '/users',
      { username: 'dave', role: 'viewer', password: 'dave password' },
      { token: null, headers: { cookie, 'x-appliance-ui': '1' } },
    );
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('cross_site_refused');
    expect(s.dumpDatabase()).toBe(before);
  });

  it('refuses a cross-site form post carrying the cookie: 403 with a sentence, nothing written', async () => {
    const cookie = await signIn();
    const before = s.dumpDatabase();
    const r = await s.call('POST', '/users', undefined, {
      token: null,
      raw: 'username=eve&role=admin&password=eve+password',
      headers: {
        cookie,
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
    });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('forbidden');
    expect(r.body.message).toMatch(/Cross-origin writes are refused/);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('DELETE /session ends the session server-side: the same cookie is then 401 session_ended', async () => {
    const cookie = await signIn();
    const out = await s.call('DELETE', '/session', undefined, { token: null, headers: { cookie, ...ui() } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^appliance_session=; .*Max-Age=0/);
    const r = await s.call('GET', '/users', undefined, { token: null, headers: { cookie } });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('session_ended');
    // a public route ignores a stale cookie
    const status = await s.call('GET', '/setup/status', undefined, { token: null, headers: { cookie } });
    expect(status.status).toBe(200);
  });

  it('a viewer session reads but cannot write', async () => {
    await s.call('POST', '/users', { username: 'vera', role: 'viewer', password: 'vera password' });
    const cookie = await signIn('vera', 'vera password');
    expect((await s.call('GET', '/users', undefined, { token: null, headers: { cookie } })).status).toBe(200);
    const w = await s.call(
      'POST',
      '/users',
      { username: 'x1', role: 'viewer', password: 'x1 password' },
      { token: null, headers: { cookie, ...ui() } },
    );
    expect(w.status).toBe(403);
    expect(w.body.code).toBe('forbidden');
  });

  it('a share-only account gets no session', async () => {
    await s.call('POST', '/users', { username: 'sam', role: 'share-only', password: 'sam password' });
    const r = await s.call(
      'POST',
      '/session',
      { username: 'sam', password: 'sam password' },
      { token: null, headers: ui() },
    );
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('share_only_no_web_ui');
  });

  it('deleting the account ends its sessions', async () => {
    const created = await s.call('POST', '/users', {
      username: 'walt',
      role: 'viewer',
      password: 'walt password',
    });
    const cookie = await signIn('walt', 'walt password');
    expect(
      (await s.call('DELETE', `/users/${created.body.id}`, { confirmation: 'walt' })).status,
    ).toBeLessThan(300);
    const r = await s.call('GET', '/users', undefined, { token: null, headers: { cookie } });
    expect(r.status).toBe(401);
  });

  it('Bearer tokens work as before, with no UI header and no origin', async () => {
    const r = await s.call('POST', '/users', { username: 'tina', role: 'viewer', password: 'tina password' });
    expect(r.status, r.text).toBe(201);
  });
});

describe('expiry on a manual clock', () => {
  it('ends after the idle limit without a request', async () => {
    const cookie = await signIn();
    const read = () => s.call('GET', '/users', undefined, { token: null, headers: { cookie } });
    const start = clock.now().getTime();
    clock.set(new Date(start + SESSION_IDLE_MS - 1000));
    expect((await read()).status).toBe(200); // used: the idle limit starts again
    await s.server.ctx.writes.run(() => undefined);
    clock.set(new Date(start + 2 * SESSION_IDLE_MS - 2000));
    expect((await read()).status).toBe(200);
    await s.server.ctx.writes.run(() => undefined);
    clock.set(new Date(start + 3 * SESSION_IDLE_MS));
    const r = await read();
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('session_ended');
  });

  it('ends at the absolute limit even while in use', async () => {
    const cookie = await signIn();
    const read = () => s.call('GET', '/users', undefined, { token: null, headers: { cookie } });
    const start = clock.now().getTime();
    for (let t = start; t < start + SESSION_ABSOLUTE_MS; t += SESSION_IDLE_MS / 2) {
      clock.set(new Date(t));
      expect((await read()).status).toBe(200);
      await s.server.ctx.writes.run(() => undefined);
    }
    clock.set(new Date(start + SESSION_ABSOLUTE_MS));
    expect((await read()).status).toBe(401);
  });
});

describe('the lock-out', () => {
  it('a wrong password is 401 login_failed with a sentence, and counts toward the lock-out', async () => {
    // its own sandbox: the lock-out also holds the address every other test signs in from
    const own = await startSandbox();
    const s = own;
    try {
      let last = await s.call(
        'POST',
        '/session',
        { username: 'bob', password: 'nope' },
        { token: null, headers: ui(own.url) },
      );
      expect(last.status).toBe(401);
      expect(last.body.code).toBe('login_failed');
      expect(last.body.message).toMatch(/username or password/);
      for (let i = 0; i < 5; i++)
        last = await s.call(
          'POST',
          '/session',
          { username: 'bob', password: 'nope' },
          { token: null, headers: ui(own.url) },
        );
      expect(last.status).toBe(429);
      expect(last.body.code).toBe('rate_limited');
      // no session opened (the burst itself is recorded as an alert, by design)
      expect(s.server.ctx.sqlite.prepare('select count(*) as n from web_sessions').get()).toEqual({ n: 0 });
    } finally {
      await own.close();
    }
  });
});
