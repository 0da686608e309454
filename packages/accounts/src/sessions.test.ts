import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './sessions.ts';
import { accountsFixture } from './test-support/index.ts';

const cookie = (secret: string) => `other=1; appliance_session=${secret}`;

describe('Sessions', () => {
  it('stores only the secret hash; acts as the owner with the current role; ends server-side', async () => {
    const f = accountsFixture();
    const u = await f.addUser('bob', 'admin');
    const { secret, expiresAt } = await f.auth.sessions.open(u.id);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(expiresAt).toBe(new Date(f.clock.now().getTime() + SESSION_ABSOLUTE_MS).toISOString());
    expect(JSON.stringify(f.store.state.sessions)).not.toContain(secret);
    expect(f.auth.session(cookie(secret), true)).toMatchObject({ username: 'bob', role: 'admin' });
    f.store.state.users[0]!.role = 'viewer';
    expect(f.auth.session(cookie(secret), true)?.role).toBe('viewer');
    f.store.state.users[0]!.role = 'share-only';
    expect(f.auth.sessions.actor(secret)).toBeNull();
    f.store.state.users[0]!.role = 'viewer';
    expect(await f.auth.sessions.end(secret)).toBe(true);
    expect(await f.auth.sessions.end(secret)).toBe(false);
    expect(() => f.auth.session(cookie(secret), true)).toThrow(Refusal);
    expect(f.auth.session(cookie(secret), false)).toBeNull();
    expect(f.auth.session('other=1', true)).toBeNull();
  });

  it('ends after an hour idle, is kept alive by use (touched at most once a minute), and ends at 12 h', async () => {
    const f = accountsFixture();
    const u = await f.addUser('bob', 'viewer');
    const start = f.clock.now().getTime();
    const { secret } = await f.auth.sessions.open(u.id);
    f.clock.set(new Date(start + 30_000));
    f.auth.sessions.actor(secret);
    expect(f.store.state.sessions[0]!.lastUsedAt).toBe(new Date(start).toISOString());
    for (let t = start; t < start + SESSION_ABSOLUTE_MS; t += SESSION_IDLE_MS / 2) {
      f.clock.set(new Date(t));
      expect(f.auth.sessions.actor(secret)).not.toBeNull();
      await Promise.resolve();
    }
    f.clock.set(new Date(start + SESSION_ABSOLUTE_MS));
    expect(f.auth.sessions.actor(secret)).toBeNull();
    const other = await f.auth.sessions.open(u.id);
    // opening a session removes the ended ones
    expect(f.store.state.sessions).toHaveLength(1);
    f.clock.advance(SESSION_IDLE_MS);
    expect(f.auth.sessions.actor(other.secret)).toBeNull();
  });
});
