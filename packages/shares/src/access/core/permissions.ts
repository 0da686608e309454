/**
 * Access editing (06 §2–§3): full replace from the share side and from the user side, over the same
 * rows. Pure: the store is a synchronous port (one database transaction or savepoint runs the whole
 * `replace…` call, so checks 9–10 and the write see one state).
 */
import { duplicateGrant, groupNotFound, shareNotFound, userNotFound } from '../errors.ts';
import { type AccessLevel, byLowerNameThenId, compareBytes } from '../model.ts';

export interface UserGrant {
  userId: string;
  access: AccessLevel;
}
export interface GroupGrant {
  groupId: string;
  access: AccessLevel;
}
export interface ShareGrant {
  shareName: string;
  access: AccessLevel;
}

/** A schema-valid share-side body (06 §2.1). */
export interface SharePermissionsInput {
  users: readonly UserGrant[];
  groups: readonly GroupGrant[];
}

/** A schema-valid user-side body (06 §3). */
export interface UserPermissionsInput {
  permissions: readonly ShareGrant[];
}

/** 06 §2.2. */
export interface SharePermissions {
  users: Array<{ userId: string; username: string; access: AccessLevel }>;
  groups: Array<{ groupId: string; name: string; access: AccessLevel }>;
}

/** 06 §3. */
export interface UserPermissions {
  userId: string;
  username: string;
  permissions: ShareGrant[];
}

/** The rows both editors touch. Every method runs inside the caller's transaction. */
export interface PermissionStore {
  shareExists(name: string): boolean;
  /** The username of a user, or null when there is no such user. */
  username(userId: string): string | null;
  /** Which of these ids are existing users / groups (ids are lowercase). */
  existingUserIds(ids: readonly string[]): ReadonlySet<string>;
  existingGroupIds(ids: readonly string[]): ReadonlySet<string>;
  /** Which of these exact names are existing shares. */
  existingShareNames(names: readonly string[]): ReadonlySet<string>;
  /** Delete every row of the share in both tables, then insert these. */
  replaceShareRows(shareName: string, users: readonly UserGrant[], groups: readonly GroupGrant[]): void;
  /** Delete every `share_user_permissions` row of the user, then insert these. */
  replaceUserRows(userId: string, grants: readonly ShareGrant[]): void;
  /** The share's rows joined with the principal names (any order). */
  readShareRows(shareName: string): SharePermissions;
  /** The user's own rows (any order). */
  readUserRows(userId: string): ShareGrant[];
}

/**
 * Check 8 of 06 §2.3: ids lowercased, the first duplicate (in request order) refused. Returns the
 * normalised request (the audit `details` and the rows use it).
 */
export function normalizeSharePermissions(input: SharePermissionsInput): SharePermissionsInput {
  const users = input.users.map((g) => ({ userId: g.userId.toLowerCase(), access: g.access }));
  const groups = input.groups.map((g) => ({ groupId: g.groupId.toLowerCase(), access: g.access }));
  const dupUser = firstDuplicate(users.map((g) => g.userId));
  if (dupUser !== undefined) throw duplicateGrant('user', dupUser);
  const dupGroup = firstDuplicate(groups.map((g) => g.groupId));
  if (dupGroup !== undefined) throw duplicateGrant('group', dupGroup);
  return { users, groups };
}

/** Checks 9–11 of 06 §2.3 (inside the transaction), then the full replace. */
export function replaceSharePermissions(
  store: PermissionStore,
  shareName: string,
  input: SharePermissionsInput,
): SharePermissions {
  if (!store.shareExists(shareName)) throw shareNotFound(shareName);
  const users = store.existingUserIds(input.users.map((g) => g.userId));
  const unknownUser = input.users.find((g) => !users.has(g.userId));
  if (unknownUser) throw userNotFound(unknownUser.userId);
  const groups = store.existingGroupIds(input.groups.map((g) => g.groupId));
  const unknownGroup = input.groups.find((g) => !groups.has(g.groupId));
  if (unknownGroup) throw groupNotFound(unknownGroup.groupId);
  store.replaceShareRows(shareName, input.users, input.groups);
  // Read back (06 §2.2) in the same transaction; the share's existence was checked above.
  return sortSharePermissions(store.readShareRows(shareName));
}

/** GET /shares/:name/permissions (06 §2.4). */
export function readSharePermissions(store: PermissionStore, shareName: string): SharePermissions {
  if (!store.shareExists(shareName)) throw shareNotFound(shareName);
  return sortSharePermissions(store.readShareRows(shareName));
}

export function sortSharePermissions(p: SharePermissions): SharePermissions {
  return {
    users: [...p.users].sort(
      byLowerNameThenId(
        (u) => u.username,
        (u) => u.userId,
      ),
    ),
    groups: [...p.groups].sort(
      byLowerNameThenId(
        (g) => g.name,
        (g) => g.groupId,
      ),
    ),
  };
}

/** The user side's duplicate check (06 §3): the same exact `shareName` twice. */
export function normalizeUserPermissions(input: UserPermissionsInput): UserPermissionsInput {
  const permissions = input.permissions.map((g) => ({ shareName: g.shareName, access: g.access }));
  const dup = firstDuplicate(permissions.map((g) => g.shareName));
  if (dup !== undefined) throw duplicateGrant('share', dup);
  return { permissions };
}

/** User lookup, share lookups in request order, then the full replace of the user's own rows. */
export function replaceUserPermissions(
  store: PermissionStore,
  userId: string,
  input: UserPermissionsInput,
): UserPermissions {
  const id = userId.toLowerCase();
  if (store.username(id) === null) throw userNotFound(id);
  const found = store.existingShareNames(input.permissions.map((g) => g.shareName));
  const unknown = input.permissions.find((g) => !found.has(g.shareName));
  if (unknown) throw shareNotFound(unknown.shareName, true);
  store.replaceUserRows(id, input.permissions);
  return readUserPermissions(store, id);
}

/** GET /users/:id/permissions (06 §3): only the user's own rows, sorted by share name (byte order). */
export function readUserPermissions(store: PermissionStore, userId: string): UserPermissions {
  const id = userId.toLowerCase();
  const username = store.username(id);
  if (username === null) throw userNotFound(id);
  const permissions = store
    .readUserRows(id)
    .map((g) => ({ shareName: g.shareName, access: g.access }))
    .sort((a, b) => compareBytes(a.shareName, b.shareName));
  return { userId: id, username, permissions };
}

function firstDuplicate(values: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) return v;
    seen.add(v);
  }
  return undefined;
}
