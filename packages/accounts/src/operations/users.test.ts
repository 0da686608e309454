import type { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { accountsFixture, codeOf } from '../test-support/index.ts';
import { createUser, deleteUser, getUser, listUsers, updateUser, type UsersDeps } from './users.ts';

function setup(options: { hostNames?: string[]; sambaFails?: boolean } = {}) {
  const f = accountsFixture();
  const calls: string[] = [];
  const deps: UsersDeps = {
    store: f.store.users(),
    passwords: f.passwords,
    hostAccountExists: (name) => (options.hostNames ?? []).includes(name.toLowerCase()),
    samba: {
      setPassword: async (name) => {
        calls.push(`setPassword ${name}`);
        if (options.sambaFails) throw new Error('smbpasswd: failed');
      },
      remove: async (name) => {
        calls.push(`remove ${name}`);
        if (options.sambaFails) throw new Error('userdel: failed');
      },
    },
    regenerateSamba: async () => void calls.push('regenerate'),
    clock: f.clock,
    random: f.random,
  };
  return { ...f, deps, calls };
}

describe('users operations', () => {
  it('creates an account: Samba password first (lowercase name), then the row and its audit row; never the hash in the view', async () => {
    const s = setup();
    const user = await createUser(s.deps, { username: 'Carol', role: 'viewer', password: 'a long password' });
    expect(user).toEqual({
      id: 'id-1',
      username: 'Carol',
      role: 'viewer',
      hasPassword: true,
      createdAt: s.clock.now().toISOString(),
      updatedAt: s.clock.now().toISOString(),
    });
    expect(s.calls).toEqual(['setPassword carol']);
    expect(s.store.state.users[0]!.passwordHash).toMatch(/^\$scrypt\$ln=4,/);
    expect(s.store.state.audit).toEqual([
      { operation: 'user.create', target: 'Carol', details: { role: 'viewer' } },
    ]);
    expect(listUsers(s.deps.store).map((u) => u.username)).toEqual(['Carol']);
    expect(getUser(s.deps.store, 'id-1').hasPassword).toBe(true);
  });

  it('refuses a taken name (ignoring case) or a host account before any side effect', async () => {
    const s = setup({ hostNames: ['backup'] });
    await s.addUser('dave', 'viewer');
    expect(
      await codeOf(createUser(s.deps, { username: 'DAVE', role: 'viewer', password: 'pw-pw-pw-pw' })),
    ).toBe('user_exists');
    expect(
      await codeOf(createUser(s.deps, { username: 'Backup', role: 'viewer', password: 'pw-pw-pw-pw' })),
    ).toBe('username_unavailable');
    expect(s.calls).toEqual([]);
    expect(s.store.state.users).toHaveLength(1);
  });

  it('saves nothing when the Samba account fails (samba_password_failed, the reason in details)', async () => {
    const s = setup({ sambaFails: true });
    const err = await createUser(s.deps, {
      username: 'erin',
      role: 'share-only',
      password: 'pw-pw-pw-pw',
    }).catch((e: Refusal) => e);
    expect(err).toMatchObject({ code: 'samba_password_failed', details: { reason: 'smbpasswd: failed' } });
    expect(s.store.state.users).toEqual([]);
  });

  it("never changes the admin's role (its password can); share-only loses its tokens", async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    const viewer = await s.addUser('vic', 'viewer');
    s.addToken(viewer.id, 'viewer');
    expect(await codeOf(updateUser(s.deps, admin.id, { role: 'viewer' }))).toBe('cannot_modify_admin');
    expect((await updateUser(s.deps, admin.id, { password: 'a new password' })).hasPassword).toBe(true);
    const updated = await updateUser(s.deps, viewer.id, { role: 'share-only' });
    expect(updated.role).toBe('share-only');
    expect(s.store.state.tokens).toEqual([]);
    expect(s.store.state.audit.at(-1)).toEqual({
      operation: 'user.update',
      target: 'vic',
      details: { role: 'share-only', passwordChanged: false },
    });
    expect(await codeOf(updateUser(s.deps, 'missing', { role: 'viewer' }))).toBe('user_not_found');
  });

  it('deletes a user: Samba account, then tokens, memberships and grants, then smb.conf; never the admin', async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    const u = await s.addUser('gone', 'viewer');
    s.addToken(u.id, 'viewer');
    s.store.state.members.push({ groupId: 'g', userId: u.id });
    s.store.state.userGrants.push({ share: 'media', userId: u.id });
    expect(await codeOf(deleteUser(s.deps, admin.id))).toBe('cannot_modify_admin');
    await deleteUser(s.deps, u.id);
    expect(s.calls).toEqual(['remove gone', 'regenerate']);
    expect(s.store.state).toMatchObject({ users: [admin], tokens: [], members: [], userGrants: [] });
    expect(await codeOf(deleteUser(s.deps, u.id))).toBe('user_not_found');
  });
});
