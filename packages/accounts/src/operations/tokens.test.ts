import { describe, expect, it } from 'vitest';
import { tokenHash } from '../core/tokens.ts';
import { accountsFixture, codeOf } from '../test-support/index.ts';
import { issueToken, listTokens, MAX_TOKENS_PER_ACCOUNT, revokeToken, type TokensDeps } from './tokens.ts';

function setup() {
  const f = accountsFixture();
  const deps: TokensDeps = { store: f.store.tokens(), clock: f.clock, random: f.random, usage: f.auth.usage };
  return { ...f, deps };
}
const actorOf = (u: { id: string; username: string; role: 'admin' | 'viewer' | 'share-only' }) => ({
  kind: 'user' as const,
  userId: u.id,
  username: u.username,
  role: u.role,
  tokenId: null,
});
describe('token operations', () => {
  it('issues a token shown once; only its hash is stored; the expiry is counted from now', async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    const t = await issueToken(s.deps, actorOf(admin), { name: 'ci', role: 'admin', expiresInSeconds: 60 });
    expect(t.token).toMatch(/^apat_[0-9a-f]{64}$/);
    expect(t).toMatchObject({ userId: admin.id, username: 'root', lastUsedAt: null });
    expect(t.expiresAt).toBe(new Date(s.clock.now().getTime() + 60_000).toISOString());
    expect(s.store.state.tokens[0]!.tokenHash).toBe(tokenHash(t.token));
    expect(s.store.state.audit).toEqual([
      { operation: 'token.create', target: 'root', details: { tokenId: t.id, name: 'ci', role: 'admin' } },
    ]);
  });

  it('refuses: another account unless admin, share-only owners, a role above caller or owner, the 101st token', async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    const viewer = await s.addUser('vic', 'viewer');
    const files = await s.addUser('files', 'share-only');
    expect(
      await codeOf(issueToken(s.deps, actorOf(viewer), { name: 'x', role: 'viewer', userId: admin.id })),
    ).toBe('forbidden');
    expect(
      await codeOf(issueToken(s.deps, actorOf(admin), { name: 'x', role: 'viewer', userId: files.id })),
    ).toBe('share_only_no_api_token');
    expect(await codeOf(issueToken(s.deps, actorOf(viewer), { name: 'x', role: 'admin' }))).toBe(
      'token_role_exceeds_caller',
    );
    expect(
      await codeOf(issueToken(s.deps, actorOf(admin), { name: 'x', role: 'admin', userId: viewer.id })),
    ).toBe('token_role_exceeds_caller');
    expect(
      await codeOf(
        issueToken(s.deps, { ...actorOf(admin), kind: 'local', userId: null }, { name: 'x', role: 'viewer' }),
      ),
    ).toBe('setup_required');
    for (let i = 0; i < MAX_TOKENS_PER_ACCOUNT; i++) s.addToken(viewer.id, 'viewer');
    expect(await codeOf(issueToken(s.deps, actorOf(viewer), { name: 'x', role: 'viewer' }))).toBe(
      'token_limit_reached',
    );
  });

  it('lists all tokens for the admin, own ones for a viewer, with the noted last use', async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    const viewer = await s.addUser('vic', 'viewer');
    s.addToken(admin.id, 'admin');
    const raw = s.addToken(viewer.id, 'viewer');
    s.auth.bearer(raw);
    expect(listTokens(s.deps, actorOf(admin))).toHaveLength(2);
    const own = listTokens(s.deps, actorOf(viewer));
    expect(own).toEqual([
      expect.objectContaining({ username: 'vic', lastUsedAt: s.clock.now().toISOString() }),
    ]);
  });

  it("revokes any token for the admin, only one's own for a viewer", async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    const viewer = await s.addUser('vic', 'viewer');
    s.addToken(admin.id, 'admin');
    s.addToken(viewer.id, 'viewer');
    const [adminToken, viewerToken] = s.store.state.tokens.map((t) => t.id);
    expect(await codeOf(revokeToken(s.deps, actorOf(viewer), adminToken!))).toBe('token_not_found');
    await revokeToken(s.deps, actorOf(viewer), viewerToken!);
    await revokeToken(s.deps, actorOf(admin), adminToken!);
    expect(s.store.state.tokens).toEqual([]);
    expect(s.store.state.audit.map((a) => a.operation)).toEqual(['token.revoke', 'token.revoke']);
  });
});
