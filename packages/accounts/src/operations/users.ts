import type { Clock } from '@appliance/common';
import {
  cannotModifyAdmin,
  sambaFailed,
  userExists,
  userNotFound,
  usernameUnavailable,
} from '../core/refusals.ts';
import type { AccountRole } from '../core/roles.ts';
import type { AuditEntry, SambaAccounts, UserRow } from '../ports.ts';

/** A user as the API answers it (never the password hash). */
export interface UserView {
  id: string;
  username: string;
  role: AccountRole;
  hasPassword: boolean;
  createdAt: string;
  updatedAt: string;
}

export function toUser(row: UserRow): UserView {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    hasPassword: row.passwordHash !== null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Reads of the users table (synchronous: inside a write job and on the hot `GET /users`). */
export interface UsersView {
  /** Every user, by lowercase username. */
  list(): UserRow[];
  find(id: string): UserRow | undefined;
  /** Whether a user has this name, compared ignoring case. */
  nameTaken(username: string): boolean;
}

/** One write transaction of the users operations; the audit row joins it. */
export interface UsersTx extends UsersView {
  insert(row: UserRow): UserRow;
  update(id: string, patch: Partial<Pick<UserRow, 'role' | 'passwordHash'>> & { updatedAt: string }): UserRow;
  /** Deletes the user's API tokens (a share-only account has none). */
  deleteTokens(userId: string): void;
  /** Deletes the user with its tokens, group memberships and share grants. */
  deleteUser(userId: string): void;
  audit(entry: AuditEntry): void;
}

export interface UsersStore extends UsersView {
  /** Runs `fn` in one write transaction (serialised with every other write). */
  write<T>(fn: (tx: UsersTx) => T): Promise<T>;
}

export interface UsersDeps {
  store: UsersStore;
  passwords: { hash(password: string): Promise<string> };
  /** Whether the host's passwd database has this name (08 §4.1). */
  hostAccountExists(username: string): boolean;
  /** The Samba/Unix account adapter, when the appliance manages Samba accounts. */
  samba: SambaAccounts | undefined;
  /** Rewrites smb.conf (a deleted user leaves its shares' valid users). */
  regenerateSamba(): Promise<void>;
  clock: Clock;
  random: { uuid(): string };
}

/**
 * Refuses a name taken by a user (`user_exists`) or by a host account (`username_unavailable`).
 * `host: false` skips the host check: inside the write transaction that follows the Samba side
 * effect, the host account just created for this user (useradd) is no longer a reason to refuse
 * (the check ran before it).
 */
export function checkNewUsername(
  view: Pick<UsersView, 'nameTaken'>,
  hostAccountExists: (username: string) => boolean,
  username: string,
  options: { host?: boolean } = {},
): void {
  if (view.nameTaken(username)) throw userExists(username);
  if (options.host !== false && hostAccountExists(username)) throw usernameUnavailable(username);
}

export function listUsers(store: UsersView): UserView[] {
  return store.list().map(toUser);
}

export function getUser(store: UsersView, id: string): UserView {
  const row = store.find(id);
  if (!row) throw userNotFound(id);
  return toUser(row);
}

export interface CreateUserInput {
  username: string;
  role: 'viewer' | 'share-only';
  password?: string | undefined;
}

/**
 * Creates a viewer or file-sharing account: the name is checked before any side effect, then the
 * password is hashed and the Samba account set (a failure saves nothing), then the row and its
 * audit row are written after checking the name again.
 */
export async function createUser(deps: UsersDeps, input: CreateUserInput): Promise<UserView> {
  checkNewUsername(deps.store, deps.hostAccountExists, input.username);
  const hash = input.password === undefined ? null : await deps.passwords.hash(input.password);
  if (input.password !== undefined && deps.samba) {
    await deps.samba.setPassword(input.username.toLowerCase(), input.password).catch((e: unknown) => {
      throw sambaFailed('samba_password_failed', e);
    });
  }
  const now = deps.clock.now().toISOString();
  const row = await deps.store.write((tx) => {
    checkNewUsername(tx, deps.hostAccountExists, input.username, { host: false });
    const inserted = tx.insert({
      id: deps.random.uuid(),
      username: input.username,
      role: input.role,
      passwordHash: hash,
      createdAt: now,
      updatedAt: now,
    });
    tx.audit({ operation: 'user.create', target: inserted.username, details: { role: inserted.role } });
    return inserted;
  });
  return toUser(row);
}

export interface UpdateUserInput {
  role?: 'viewer' | 'share-only' | undefined;
  password?: string | undefined;
}

/**
 * Changes a user's role or password. The administrator's role never changes (its password can);
 * a user made share-only loses its API tokens. The Samba password is set before the row.
 */
export async function updateUser(deps: UsersDeps, id: string, input: UpdateUserInput): Promise<UserView> {
  const current = deps.store.find(id);
  if (!current) throw userNotFound(id);
  if (current.role === 'admin' && input.role !== undefined) throw cannotModifyAdmin();
  const hash = input.password === undefined ? undefined : await deps.passwords.hash(input.password);
  if (input.password !== undefined && deps.samba) {
    await deps.samba.setPassword(current.username.toLowerCase(), input.password).catch((e: unknown) => {
      throw sambaFailed('samba_password_failed', e);
    });
  }
  const now = deps.clock.now().toISOString();
  const row = await deps.store.write((tx) => {
    const fresh = tx.find(id);
    if (!fresh) throw userNotFound(id);
    if (fresh.role === 'admin' && input.role !== undefined) throw cannotModifyAdmin();
    const updated = tx.update(id, {
      ...(input.role ? { role: input.role } : {}),
      ...(hash ? { passwordHash: hash } : {}),
      updatedAt: now,
    });
    if (input.role === 'share-only') tx.deleteTokens(id);
    tx.audit({
      operation: 'user.update',
      target: updated.username,
      details: {
        ...(input.role ? { role: input.role } : {}),
        passwordChanged: input.password !== undefined,
      },
    });
    return updated;
  });
  return toUser(row);
}

/**
 * Deletes a user (never the administrator) with its tokens, memberships and share grants: the
 * Samba account goes first (a failure saves nothing), then the rows, then smb.conf is rewritten.
 */
export async function deleteUser(deps: UsersDeps, id: string): Promise<void> {
  const current = deps.store.find(id);
  if (!current) throw userNotFound(id);
  if (current.role === 'admin') throw cannotModifyAdmin();
  if (deps.samba) {
    await deps.samba.remove(current.username.toLowerCase()).catch((e: unknown) => {
      throw sambaFailed('samba_account_failed', e);
    });
  }
  await deps.store.write((tx) => {
    const fresh = tx.find(id);
    if (!fresh) throw userNotFound(id);
    if (fresh.role === 'admin') throw cannotModifyAdmin();
    tx.deleteUser(id);
    tx.audit({ operation: 'user.delete', target: fresh.username });
  });
  await deps.regenerateSamba();
}
