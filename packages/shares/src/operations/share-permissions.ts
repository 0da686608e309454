/**
 * Share access (06) as operations: the share-side and user-side full replaces over the same grant
 * rows (each audited, then smb.conf regenerated), and the effective-access view.
 */
import { indexAccess, type ShareAccess } from '../access/core/effective-access.ts';
import {
  normalizeSharePermissions,
  normalizeUserPermissions,
  replaceSharePermissions,
  replaceUserPermissions,
  type SharePermissions,
  type SharePermissionsInput,
  type UserPermissions,
  type UserPermissionsInput,
} from '../access/core/permissions.ts';
import { shareNotFound } from '../access/errors.ts';
import type { ShareOperationPorts } from './ports.ts';
import { writeThenRegenerate } from './regenerate.ts';

/** Replaces a share's per-user and per-group access; returns it read back. */
export function setSharePermissions(
  ports: ShareOperationPorts,
  shareName: string,
  body: SharePermissionsInput,
): Promise<SharePermissions> {
  const input = normalizeSharePermissions(body);
  return writeThenRegenerate(ports, (tx) => {
    const result = replaceSharePermissions(tx.permissions, shareName, input);
    tx.audit({
      operation: 'share_permissions.update',
      target: shareName,
      details: { users: input.users, groups: input.groups },
    });
    return result;
  });
}

/** Replaces one user's own access rows across all shares; returns them read back. */
export function setUserPermissions(
  ports: ShareOperationPorts,
  userId: string,
  body: UserPermissionsInput,
): Promise<UserPermissions> {
  const input = normalizeUserPermissions(body);
  const id = userId.toLowerCase();
  return writeThenRegenerate(ports, (tx) => {
    const result = replaceUserPermissions(tx.permissions, id, input);
    tx.audit({
      operation: 'user_permissions.update',
      target: id,
      details: { permissions: input.permissions },
    });
    return result;
  });
}

/** The effective access of every user on a share (what Samba enforces). */
export function effectiveShareAccess(
  ports: Pick<ShareOperationPorts, 'read'>,
  shareName: string,
): ShareAccess {
  if (!ports.read.find(shareName)) throw shareNotFound(shareName);
  return indexAccess(ports.read.snapshot()).shareAccess(shareName);
}
