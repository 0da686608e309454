import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { accountsFixture } from './test-support/index.ts';

const code = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return err instanceof Refusal ? err.code : String(err);
  }
  return 'ok';
};

describe('Authenticator.bearer', () => {
  it('answers the owner with the lower of the token and owner roles, and notes the use', async () => {
    const f = accountsFixture();
    const viewer = await f.addUser('Bob', 'viewer');
    const raw = f.addToken(viewer.id, 'admin');
    const actor = f.auth.bearer(raw);
    expect(actor).toMatchObject({ kind: 'user', userId: viewer.id, username: 'Bob', role: 'viewer' });
    expect(f.auth.usage.lastUsedAt(actor.tokenId!, null)).toBe(f.clock.now().toISOString());
  });

  it('refuses a malformed, unknown or expired token, and one whose owner is gone', async () => {
    const f = accountsFixture();
    const u = await f.addUser('ann', 'admin');
    expect(await code(() => f.auth.bearer('apat_nothex'))).toBe('unauthorized');
    expect(await code(() => f.auth.bearer(`apat_${'0'.repeat(64)}`))).toBe('unauthorized');
    const soon = f.addToken(u.id, 'admin', new Date(f.clock.now().getTime() + 1000).toISOString());
    expect(f.auth.bearer(soon).role).toBe('admin');
    f.clock.advance(1000);
    // the cached answer too is refused once expired
    expect(await code(() => f.auth.bearer(soon))).toBe('unauthorized');
    const orphan = f.addToken('nobody', 'viewer');
    expect(await code(() => f.auth.bearer(orphan))).toBe('unauthorized');
  });

  it('caches answers; a change of tokens or users or a foreign commit empties the cache', async () => {
    const f = accountsFixture();
    const u = await f.addUser('ann', 'admin');
    const raw = f.addToken(u.id, 'admin');
    f.auth.bearer(raw);
    expect(f.auth.cachedCredentials).toBe(1);
    // a token deleted behind the cache: the store's change callback clears it inside the write
    await f.store.tokens().write((tx) => tx.revoke(f.store.state.tokens[0]!.id, null));
    expect(f.auth.cachedCredentials).toBe(0);
    expect(await code(() => f.auth.bearer(raw))).toBe('unauthorized');
    const again = f.addToken(u.id, 'admin');
    f.auth.bearer(again);
    expect(f.auth.cachedCredentials).toBe(1);
    f.store.foreignVersion++;
    f.clock.advance(250);
    f.store.state.tokens = [];
    expect(await code(() => f.auth.bearer(again))).toBe('unauthorized');
  });
});

describe('Authenticator.login', () => {
  it('answers a valid password (name ignoring case); a share-only account is refused after the check', async () => {
    const f = accountsFixture();
    await f.addUser('Ann', 'admin', 'correct horse');
    await f.addUser('files', 'share-only', 'correct horse');
    expect(await f.auth.login('ann', 'correct horse', '10.0.0.1')).toMatchObject({
      username: 'Ann',
      role: 'admin',
    });
    expect(await code(f.auth.login('ann', 'wrong', '10.0.0.1'))).toBe('unauthorized');
    expect(await code(f.auth.login('files', 'correct horse', '10.0.0.1'))).toBe('share_only_no_api_token');
  });

  it('locks out after five failures, raises login_failure_burst once, and says how long to wait', async () => {
    const f = accountsFixture();
    await f.addUser('ann', 'admin', 'secret-1');
    for (let i = 0; i < 5; i++)
      expect(await code(f.auth.login('ann', 'bad', '10.0.0.9'))).toBe('unauthorized');
    expect(f.raised).toEqual([
      expect.objectContaining({
        eventType: 'login_failure_burst',
        message: expect.stringContaining('10.0.0.9'),
      }),
    ]);
    const err = await f.auth.login('ann', 'secret-1', '10.0.0.9').catch((e: Refusal) => e);
    expect(err).toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: 30 } });
    f.clock.advance(30_000);
    expect((await f.auth.login('ann', 'secret-1', '10.0.0.9')).username).toBe('ann');
  });

  it('Basic: decodes user:password; a header without a colon is unauthorized', async () => {
    const f = accountsFixture();
    await f.addUser('ann', 'admin', 'pw:with:colons');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect((await f.auth.basic(b64('ann:pw:with:colons'), 'a')).username).toBe('ann');
    expect(await code(f.auth.basic(b64('ann'), 'a'))).toBe('unauthorized');
  });
});

describe('adminExists and localActor', () => {
  it('caches a true answer until reset; the local actor is the admin account', async () => {
    const f = accountsFixture();
    expect(f.auth.adminExists()).toBe(false);
    expect(f.auth.localActor()).toMatchObject({
      kind: 'local',
      userId: null,
      username: 'local',
      role: 'admin',
    });
    const admin = await f.addUser('root-admin', 'admin');
    expect(f.auth.adminExists()).toBe(true);
    f.store.state.users = [];
    expect(f.auth.adminExists()).toBe(true);
    f.auth.resetAdminCache();
    expect(f.auth.adminExists()).toBe(false);
    f.store.state.users = [admin];
    expect(f.auth.localActor()).toMatchObject({ userId: admin.id, username: 'root-admin' });
  });
});
