import type { Clock } from '@appliance/common';
import { refuse } from '@appliance/common';
import type { Authenticator } from '../authenticator.ts';
import { userLockKey } from '../lockout.ts';
import type { RaiseEvent, SambaAccounts, UserRow } from '../ports.ts';
import { checkNewUsername, toUser, type UserView, type UsersTx } from './users.ts';

/** A notification event (the `credential_reset` the password reset raises). */
export interface SetupEvent {
  eventType: string;
  title: string;
  message: string;
}

/** One write transaction of the first-run setup and the local password reset. */
export interface SetupTx extends Pick<UsersTx, 'nameTaken' | 'insert' | 'update' | 'audit'> {
  /** The administrator account, if one exists. */
  admin(): UserRow | undefined;
  /** Deletes every API token of the account; how many there were. */
  revokeTokens(userId: string): number;
  /** The appliance's host name (its settings), named in the reset's event. */
  hostname(): string;
  /**
   * Raises the event inside this write, so it commits with the change; `announce` after the commit
   * pushes it out. Null when notifications do not run (the event is then raised after the commit).
   */
  raiseWithin(event: SetupEvent): { announce(): void } | null;
}

export interface SetupStore {
  /** The administrator account, if one exists. */
  admin(): UserRow | undefined;
  /** Whether a user has this name, compared ignoring case. */
  nameTaken(username: string): boolean;
  /** Runs `fn` in one write transaction (serialised with every other write). */
  write<T>(fn: (tx: SetupTx) => T): Promise<T>;
}

export interface SetupDeps {
  store: SetupStore;
  /** The authenticator: its cached "an administrator exists", its password hasher and lock-out. */
  auth: Pick<Authenticator, 'adminExists' | 'resetAdminCache' | 'passwords'> & {
    lockout: { succeed(keys: string[]): void };
  };
  /** Whether the host's passwd database has this name (08 §4.1). */
  hostAccountExists(username: string): boolean;
  /** The Samba/Unix account adapter, when the appliance manages Samba accounts. */
  samba: SambaAccounts | undefined;
  /** Raises an event after the commit (when notifications give no `raiseWithin`). */
  raise: RaiseEvent;
  clock: Clock;
  random: { uuid(): string };
}

export const setupComplete = () =>
  refuse('setup_complete', 'An administrator already exists; log in with it instead.');

export const noAdministrator = () =>
  refuse('setup_required', 'No administrator exists yet: create one with appliance admin create.');

/** The Samba password of the setup operations could not be set (502 in the server's map). */
const sambaPasswordFailed = (err: unknown) =>
  refuse(
    'samba_password_failed',
    'Setting the Samba password failed; nothing was saved. Check the service log.',
    { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
  );

/** The refusal of the setup gate (its sentence names the two ways to create the administrator). */
export const setupRequired = () =>
  refuse(
    'setup_required',
    'No administrator exists yet: create one with POST /api/v1/setup/admin (or `appliance admin create`).',
  );

/**
 * The setup gate: until the first administrator exists, every route refuses `setup_required`
 * except the ungated ones (setup, docs) and, on the Unix socket, those served before setup (the
 * configuration import's preview and import).
 */
export function checkSetupGate(
  auth: Pick<Authenticator, 'adminExists'>,
  route: { ungated?: boolean | undefined; socketBeforeSetup?: boolean | undefined },
  local: boolean,
): void {
  if (!route.ungated && !auth.adminExists()) {
    if (!(route.socketBeforeSetup && local)) throw setupRequired();
  }
}

/** Whether the first administrator still has to be created. */
export function setupStatus(auth: Pick<Authenticator, 'adminExists'>): { setupRequired: boolean } {
  return { setupRequired: !auth.adminExists() };
}

export interface CreateAdminInput {
  username: string;
  password: string;
}

/**
 * Creates the one administrator account (first-run setup). Refuses `setup_complete` when one
 * exists, and a taken name before any side effect (the Unix and Samba account); then hashes the
 * password, sets the Samba password (a failure saves nothing) and writes the row with its audit
 * row after checking both again in the same transaction.
 */
export async function createAdmin(deps: SetupDeps, input: CreateAdminInput): Promise<{ user: UserView }> {
  if (deps.auth.adminExists()) throw setupComplete();
  // Refuse before any side effect (the Unix and Samba account) when the name is taken.
  checkNewUsername(deps.store, deps.hostAccountExists, input.username);
  const hash = await deps.auth.passwords.hash(input.password);
  await deps.samba?.setPassword(input.username.toLowerCase(), input.password).catch((err: unknown) => {
    throw sambaPasswordFailed(err);
  });
  const now = deps.clock.now().toISOString();
  const row = await deps.store.write((tx) => {
    // Check and insert in one IMMEDIATE transaction; the partial unique index
    // users_one_admin is the last line of defence.
    if (tx.admin()) throw setupComplete();
    checkNewUsername(tx, deps.hostAccountExists, input.username, { host: false });
    const inserted = tx.insert({
      id: deps.random.uuid(),
      username: input.username,
      role: 'admin',
      passwordHash: hash,
      createdAt: now,
      updatedAt: now,
    });
    tx.audit({ operation: 'setup.admin_create', target: inserted.username });
    return inserted;
  });
  deps.auth.resetAdminCache();
  return { user: toUser(row) };
}

export interface ResetAdminPasswordInput {
  password: string;
  /** Also revoke every API token of the administrator. */
  revokeTokens: boolean;
}

/** The `credential_reset` event of a password reset on the appliance itself. */
export function credentialResetEvent(
  host: string,
  admin: string,
  at: string,
  tokensRevoked: number,
): SetupEvent {
  return {
    eventType: 'credential_reset',
    title: `Administrator password reset on ${host}`,
    message: `The password of the administrator ${admin} of ${host} was reset on the appliance itself (appliance admin reset-password, through the service's Unix socket) at ${at}${tokensRevoked > 0 ? `; the ${tokensRevoked} API token${tokensRevoked === 1 ? '' : 's'} of the account ${tokensRevoked === 1 ? 'was' : 'were'} revoked` : ''}. If you did not do this, someone with root access to the appliance did: set a new password and check who can log in to the machine.`,
  };
}

/**
 * Resets the administrator's password (the local `appliance admin reset-password`): the Samba
 * password first (a failure saves nothing), then the hash, the optional revocation of its tokens,
 * the audit row and the `credential_reset` event in one commit; the account's lock-out ends.
 */
export async function resetAdminPassword(
  deps: SetupDeps,
  input: ResetAdminPasswordInput,
): Promise<{ user: UserView; tokensRevoked: number }> {
  const admin = deps.store.admin();
  if (!admin) throw noAdministrator();
  const hash = await deps.auth.passwords.hash(input.password);
  await deps.samba?.setPassword(admin.username.toLowerCase(), input.password).catch((err: unknown) => {
    throw sambaPasswordFailed(err);
  });
  const now = deps.clock.now().toISOString();
  const done = await deps.store.write((tx) => {
    const row = tx.update(admin.id, { passwordHash: hash, updatedAt: now });
    const tokensRevoked = input.revokeTokens ? tx.revokeTokens(admin.id) : 0;
    tx.audit({ operation: 'admin.reset_password', target: admin.username, details: { tokensRevoked } });
    const event = credentialResetEvent(tx.hostname(), admin.username, now, tokensRevoked);
    // raised in the same commit as the reset: no reset goes unannounced
    const raised = tx.raiseWithin(event);
    return { row, tokensRevoked, raised, event };
  });
  if (done.raised) done.raised.announce();
  else await deps.raise(done.event);
  // the lock-out of the account's password logins ends with the reset
  deps.auth.lockout.succeed([userLockKey(admin.username)]);
  return { user: toUser(done.row), tokensRevoked: done.tokensRevoked };
}
