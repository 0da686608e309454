import type { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { accountsFixture } from '../test-support/index.ts';
import { authenticatedVia, signIn, signOut } from './session.ts';

describe('browser sign-in and sign-out', () => {
  it('signs in with a password: a session cookie (HttpOnly, SameSite=Strict, 12 h, Secure over HTTPS)', async () => {
    const f = accountsFixture();
    await f.addUser('ann', 'viewer', 'a-password');
    const done = await signIn(f.auth, {
      username: 'ANN',
      password: 'a-password',
      source: '::1',
      secure: true,
    });
    expect(done).toMatchObject({ username: 'ann', role: 'viewer', via: 'session' });
    expect(done.cookie).toMatch(
      /^appliance_session=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/,
    );
    const secret = /=([0-9a-f]{64});/.exec(done.cookie)![1]!;
    expect(f.auth.sessions.actor(secret)?.username).toBe('ann');
    const cleared = await signOut(f.auth, `appliance_session=${secret}`, false);
    expect(cleared).toBe('appliance_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    expect(f.auth.sessions.actor(secret)).toBeNull();
  });

  it('a wrong password is login_failed, a file-sharing account share_only_no_web_ui', async () => {
    const f = accountsFixture();
    await f.addUser('files', 'share-only', 'a-password');
    const codeOf = (p: Promise<unknown>) => p.catch((e: Refusal) => e.code);
    expect(
      await codeOf(signIn(f.auth, { username: 'files', password: 'no', source: 'x', secure: false })),
    ).toBe('login_failed');
    expect(
      await codeOf(signIn(f.auth, { username: 'files', password: 'a-password', source: 'x', secure: false })),
    ).toBe('share_only_no_web_ui');
    expect(f.store.state.sessions).toEqual([]);
  });

  it('says how a request was authenticated', () => {
    const user = {
      kind: 'user' as const,
      userId: 'u',
      username: 'u',
      role: 'viewer' as const,
      tokenId: null,
    };
    expect(authenticatedVia(user, true)).toBe('token');
    expect(authenticatedVia(user, false)).toBe('session');
    expect(authenticatedVia({ ...user, kind: 'local' }, false)).toBe('local');
  });
});
