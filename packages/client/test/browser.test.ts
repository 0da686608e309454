/**
 * The browser transport (src/browser.ts) against a real server, with a fetch that behaves like a
 * same-origin page: it keeps the session cookie and sends the page's Origin. Writes carry the UI
 * header; refusals arrive as ApiError with the API's sentence.
 */
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createBrowserClient } from '../src/browser.ts';

let s: Sandbox;
beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
});
afterAll(async () => {
  await s?.close();
});

/** A fetch with a cookie jar of one cookie and the page's origin, like a browser tab. */
function pageFetch(): typeof fetch {
  let cookie = '';
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('origin', s.url);
    headers.set('sec-fetch-site', 'same-origin');
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(input, { ...init, headers });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!;
    return res;
  };
}

describe('createBrowserClient', () => {
  it('signs in, reads and writes with the session, signs out', async () => {
    const api = createBrowserClient({ base: s.url, fetch: pageFetch() });
    const me = await api.post('/session', { body: { username: 'admin', password: s.adminPassword } });
    expect(me).toMatchObject({ username: 'admin', role: 'admin', via: 'session' });
    expect(await api.get('/session')).toEqual({ username: 'admin', role: 'admin', via: 'session' });
    const user = await api.post('/users', {
      body: { username: 'bea', role: 'viewer', password: 'bea password' },
    });
    expect(user.username).toBe('bea');
    await api.delete('/session');
    const after = await api.get('/users').catch((e: unknown) => e);
    expect(after).toBeInstanceOf(ApiError);
    expect((after as ApiError).status).toBe(401);
  });

  it('an API refusal is an ApiError carrying its code and sentence', async () => {
    const api = createBrowserClient({ base: s.url, fetch: pageFetch() });
    const err = await api
      .post('/session', { body: { username: 'admin', password: 'wrong' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('login_failed');
    expect((err as ApiError).message).toMatch(/username or password/);
  });

  it('a service that cannot be reached is ApiError unreachable with a sentence', async () => {
    const api = createBrowserClient({ base: 'http://127.0.0.1:9' });
    const err = await api.get('/setup/status').catch((e: unknown) => e);
    expect((err as ApiError).code).toBe('unreachable');
  });
});
