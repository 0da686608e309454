import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE, UI_HEADER } from '../core/session-http.ts';
import { accountsFixture } from '../test-support/index.ts';
import { authenticateRequest, type CredentialRequest } from './authenticate.ts';

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof Refusal ? e.code : String(e)),
  );

/** A request over TCP to a route that needs a credential; `reads` lists the lazy reads made. */
function request(overrides: Partial<CredentialRequest> = {}, cookie?: string) {
  const reads: string[] = [];
  const req: CredentialRequest = {
    local: false,
    authorization: undefined,
    allowBasic: false,
    needsCredential: true,
    source: '192.0.2.7',
    cookie: () => {
      reads.push('cookie');
      return cookie;
    },
    sessionWrite: () => {
      reads.push('sessionWrite');
      return {
        method: 'POST',
        uiHeader: '1',
        secFetchSite: 'same-origin',
        origin: undefined,
        ownOrigin: () => 'x',
      };
    },
    ...overrides,
  };
  return { req, reads };
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('authenticateRequest', () => {
  it('the Unix socket is the local administrator, whatever the headers', async () => {
    const f = accountsFixture();
    await f.addUser('root', 'admin');
    const { req, reads } = request({ local: true, authorization: 'Bearer nonsense' });
    expect(await authenticateRequest(f.auth, req)).toMatchObject({
      kind: 'local',
      username: 'root',
      role: 'admin',
    });
    expect(reads).toEqual([]);
  });

  it('a Bearer token (scheme ignoring case); a bad one is unauthorized', async () => {
    const f = accountsFixture();
    const u = await f.addUser('ann', 'viewer');
    const raw = f.addToken(u.id, 'viewer');
    const { req, reads } = request({ authorization: `bearer   ${raw}` });
    expect(await authenticateRequest(f.auth, req)).toMatchObject({ username: 'ann', role: 'viewer' });
    expect(reads).toEqual([]);
    expect(await code(authenticateRequest(f.auth, request({ authorization: 'Bearer apat_x' }).req))).toBe(
      'unauthorized',
    );
  });

  it('Basic only where the route allows it; another scheme is unauthorized', async () => {
    const f = accountsFixture();
    await f.addUser('ann', 'admin', 'ann password');
    const auth = basic('ann', 'ann password');
    expect(await code(authenticateRequest(f.auth, request({ authorization: auth }).req))).toBe(
      'unauthorized',
    );
    const allowed = await authenticateRequest(f.auth, request({ authorization: auth, allowBasic: true }).req);
    expect(allowed).toMatchObject({ username: 'ann', tokenId: null });
    expect(await code(authenticateRequest(f.auth, request({ authorization: 'Digest x' }).req))).toBe(
      'unauthorized',
    );
    // the lock-out counts failures by the request's source
    for (let i = 0; i < 5; i++)
      await code(
        authenticateRequest(f.auth, request({ authorization: basic('ann', 'wrong'), allowBasic: true }).req),
      );
    expect(f.lockout.retryAfter(['addr:192.0.2.7'])).toBeGreaterThan(0);
  });

  it('without an Authorization header: the session cookie, whose write must come from the UI', async () => {
    const f = accountsFixture();
    const u = await f.addUser('ann', 'admin');
    const session = await f.auth.sessions.open(u.id);
    const cookie = `${SESSION_COOKIE}=${session.secret}`;
    const ok = request({}, cookie);
    expect(await authenticateRequest(f.auth, ok.req)).toMatchObject({ username: 'ann' });
    expect(ok.reads).toEqual(['cookie', 'sessionWrite']);
    const cross = request(
      {
        sessionWrite: () => ({
          method: 'POST',
          uiHeader: undefined,
          secFetchSite: 'cross-site',
          origin: 'https://evil.example',
          ownOrigin: () => 'http://nas',
        }),
      },
      cookie,
    );
    expect(await code(authenticateRequest(f.auth, cross.req))).toBe('cross_site_refused');
    expect(UI_HEADER).toBe('x-appliance-ui');
  });

  it('no credential is null; a dead cookie is session_ended only where a credential is needed', async () => {
    const f = accountsFixture();
    const none = request();
    expect(await authenticateRequest(f.auth, none.req)).toBeNull();
    expect(none.reads).toEqual(['cookie']);
    const dead = `${SESSION_COOKIE}=${'ab'.repeat(32)}`;
    expect(await code(authenticateRequest(f.auth, request({}, dead).req))).toBe('session_ended');
    expect(await authenticateRequest(f.auth, request({ needsCredential: false }, dead).req)).toBeNull();
  });
});
