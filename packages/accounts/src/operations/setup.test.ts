import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { accountsFixture, codeOf } from '../test-support/index.ts';
import { checkSetupGate, createAdmin, resetAdminPassword, type SetupDeps, setupStatus } from './setup.ts';

function setup(options: { hostNames?: string[]; sambaFails?: boolean; notifications?: boolean } = {}) {
  const f = accountsFixture();
  const calls: string[] = [];
  const deps: SetupDeps = {
    store: f.store.setup({ notifications: options.notifications ?? true }),
    auth: f.auth,
    hostAccountExists: (name) => (options.hostNames ?? []).includes(name.toLowerCase()),
    samba: {
      setPassword: async (name) => {
        calls.push(`setPassword ${name}`);
        if (options.sambaFails) throw new Error('smbpasswd: failed');
      },
      remove: async () => {},
    },
    raise: async (e) => void f.raised.push(e),
    clock: f.clock,
    random: f.random,
  };
  return { ...f, deps, calls };
}

describe('checkSetupGate', () => {
  it('before the administrator exists: only ungated routes, and socket-before-setup ones on the socket', async () => {
    const s = setup();
    const refused = (route: Parameters<typeof checkSetupGate>[1], local: boolean) => {
      try {
        checkSetupGate(s.auth, route, local);
        return 'open';
      } catch (e) {
        return e instanceof Refusal ? `${e.code}: ${e.message}` : String(e);
      }
    };
    const closed =
      'setup_required: No administrator exists yet: create one with POST /api/v1/setup/admin (or `appliance admin create`).';
    expect(refused({}, false)).toBe(closed);
    expect(refused({}, true)).toBe(closed);
    expect(refused({ ungated: true }, false)).toBe('open');
    expect(refused({ socketBeforeSetup: true }, true)).toBe('open');
    expect(refused({ socketBeforeSetup: true }, false)).toBe(closed);
    await createAdmin(s.deps, { username: 'root', password: 'pw-pw-pw-pw' });
    expect(refused({}, false)).toBe('open');
  });
});

describe('createAdmin (first-run setup)', () => {
  it('creates the administrator: Samba password first (lowercase name), then the row and its audit row', async () => {
    const s = setup();
    expect(setupStatus(s.auth)).toEqual({ setupRequired: true });
    const { user } = await createAdmin(s.deps, { username: 'NasAdmin', password: 'correct horse battery' });
    expect(user).toEqual({
      id: 'id-1',
      username: 'NasAdmin',
      role: 'admin',
      hasPassword: true,
      createdAt: s.clock.now().toISOString(),
      updatedAt: s.clock.now().toISOString(),
    });
    expect(s.calls).toEqual(['setPassword nasadmin']);
    expect(await s.passwords.verify('correct horse battery', s.store.state.users[0]!.passwordHash!)).toBe(
      true,
    );
    expect(s.store.state.audit).toEqual([{ operation: 'setup.admin_create', target: 'NasAdmin' }]);
    expect(setupStatus(s.auth)).toEqual({ setupRequired: false });
  });

  it('refuses a second administrator (setup_complete) with nothing done', async () => {
    const s = setup();
    await createAdmin(s.deps, { username: 'root1', password: 'pw-pw-pw-pw' });
    const err = await createAdmin(s.deps, { username: 'other', password: 'pw-pw-pw-pw' }).catch((e) => e);
    expect(err).toBeInstanceOf(Refusal);
    expect(err).toMatchObject({ code: 'setup_complete', message: expect.stringMatching(/log in with it/) });
    expect(s.calls).toEqual(['setPassword root1']);
    expect(s.store.state.users).toHaveLength(1);
  });

  it('refuses setup_complete inside the write when another admin committed after the cached check', async () => {
    const s = setup();
    const started = createAdmin(s.deps, { username: 'first', password: 'pw-pw-pw-pw' });
    // a concurrent setup commits while this one hashes its password
    await s.addUser('racer', 'admin');
    expect(await codeOf(started)).toBe('setup_complete');
    expect(s.store.state.users.map((u) => u.username)).toEqual(['racer']);
    expect(s.store.state.audit).toEqual([]);
  });

  it('refuses a taken name or a host account before any side effect', async () => {
    const s = setup({ hostNames: ['postgres'] });
    await s.addUser('Dave', 'viewer');
    expect(await codeOf(createAdmin(s.deps, { username: 'dave', password: 'pw-pw-pw-pw' }))).toBe(
      'user_exists',
    );
    expect(await codeOf(createAdmin(s.deps, { username: 'Postgres', password: 'pw-pw-pw-pw' }))).toBe(
      'username_unavailable',
    );
    expect(s.calls).toEqual([]);
    expect(s.store.state.users).toHaveLength(1);
  });

  it('a host account made by the Samba step itself is no reason to refuse (the second check skips the host)', async () => {
    const host: string[] = [];
    const s = setup();
    s.deps.hostAccountExists = (name) => host.includes(name.toLowerCase());
    s.deps.samba = { setPassword: async (name) => void host.push(name), remove: async () => {} };
    expect((await createAdmin(s.deps, { username: 'nasadmin', password: 'pw-pw-pw-pw' })).user.role).toBe(
      'admin',
    );
  });

  it('saves nothing when the Samba password fails (samba_password_failed, the reason in details)', async () => {
    const s = setup({ sambaFails: true });
    const err = await createAdmin(s.deps, { username: 'erin', password: 'pw-pw-pw-pw' }).catch((e) => e);
    expect(err).toMatchObject({
      code: 'samba_password_failed',
      message: 'Setting the Samba password failed; nothing was saved. Check the service log.',
      details: { reason: 'smbpasswd: failed' },
    });
    expect(s.store.state.users).toEqual([]);
    expect(setupStatus(s.auth).setupRequired).toBe(true);
  });
});

describe('resetAdminPassword (the local reset)', () => {
  it('refuses setup_required before an administrator exists', async () => {
    const s = setup();
    expect(await codeOf(resetAdminPassword(s.deps, { password: 'new password', revokeTokens: false }))).toBe(
      'setup_required',
    );
    expect(s.calls).toEqual([]);
  });

  it('sets the password, revokes the tokens when asked, audits and raises credential_reset in the same commit', async () => {
    const s = setup();
    const admin = await s.addUser('Root', 'admin', 'old password');
    s.addToken(admin.id, 'admin');
    s.addToken(admin.id, 'viewer');
    const other = await s.addUser('vic', 'viewer');
    s.addToken(other.id, 'viewer');
    s.clock.advance(60_000);
    const done = await resetAdminPassword(s.deps, { password: 'a new password', revokeTokens: true });
    expect(done).toMatchObject({
      tokensRevoked: 2,
      user: { username: 'Root', updatedAt: s.clock.now().toISOString() },
    });
    expect(s.calls).toEqual(['setPassword root']);
    expect(await s.passwords.verify('a new password', s.store.state.users[0]!.passwordHash!)).toBe(true);
    expect(s.store.state.tokens.map((t) => t.userId)).toEqual([other.id]);
    expect(s.store.state.audit).toEqual([
      { operation: 'admin.reset_password', target: 'Root', details: { tokensRevoked: 2 } },
    ]);
    expect(s.store.state.alerts).toEqual([
      {
        eventType: 'credential_reset',
        title: 'Administrator password reset on nas',
        message: `The password of the administrator Root of nas was reset on the appliance itself (appliance admin reset-password, through the service's Unix socket) at ${s.clock.now().toISOString()}; the 2 API tokens of the account were revoked. If you did not do this, someone with root access to the appliance did: set a new password and check who can log in to the machine.`,
      },
    ]);
    expect(s.store.announced).toEqual(s.store.state.alerts);
    expect(s.raised).toEqual([]);
  });

  it('keeps the tokens unless asked; one revoked token is named in the singular', async () => {
    const s = setup();
    const admin = await s.addUser('root', 'admin');
    s.addToken(admin.id, 'admin');
    expect(
      (await resetAdminPassword(s.deps, { password: 'pw-pw-pw-pw', revokeTokens: false })).tokensRevoked,
    ).toBe(0);
    expect(s.store.state.tokens).toHaveLength(1);
    expect(s.store.state.alerts[0]!.message).not.toMatch(/revoked/);
    await resetAdminPassword(s.deps, { password: 'pw-pw-pw-pw', revokeTokens: true });
    expect(s.store.state.alerts[1]!.message).toMatch(/; the 1 API token of the account was revoked\./);
  });

  it('raises the event after the commit when notifications give no raiseWithin, and ends the lock-out', async () => {
    const s = setup({ notifications: false });
    await s.addUser('root', 'admin', 'old password');
    for (let i = 0; i < 5; i++) s.lockout.fail(['user:root']);
    expect(s.lockout.retryAfter(['user:root'])).toBeGreaterThan(0);
    await resetAdminPassword(s.deps, { password: 'a new password', revokeTokens: false });
    expect(s.store.state.alerts).toEqual([]);
    expect(s.raised.map((e) => e.eventType)).toEqual(['credential_reset']);
    expect(s.lockout.retryAfter(['user:root'])).toBe(0);
  });

  it('saves nothing when the Samba password fails', async () => {
    const s = setup({ sambaFails: true });
    const admin = await s.addUser('root', 'admin', 'old password');
    s.addToken(admin.id, 'admin');
    const before = structuredClone(s.store.state);
    expect(await codeOf(resetAdminPassword(s.deps, { password: 'pw-pw-pw-pw', revokeTokens: true }))).toBe(
      'samba_password_failed',
    );
    expect(s.store.state).toEqual(before);
    expect(s.raised).toEqual([]);
  });
});
