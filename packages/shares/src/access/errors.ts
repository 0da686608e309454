import { AppError, type Refusal, refuse } from '@appliance/common';

/**
 * The refusals of share and access operations (06 §6, 08 §6), one constructor per code: a code, a
 * sentence, details (`Refusal`); the server's error map gives `*_not_found` 404, `duplicate_grant`
 * 400 and the others 409. The failures of Samba itself below carry their status (`AppError`).
 */

export const shareNotFound = (name: string, viaBody = false): Refusal =>
  refuse(
    'share_not_found',
    `There is no share named "${name}" (names are case-sensitive): check the name or create the share first.`,
    viaBody ? { shareName: name } : { name },
  );

export const userNotFound = (userId: string): Refusal =>
  refuse('user_not_found', `There is no user with id ${userId}: list the users and use one of their ids.`, {
    userId,
  });

export const groupNotFound = (groupId: string): Refusal =>
  refuse(
    'group_not_found',
    `There is no user group with id ${groupId}: list the user groups and use one of their ids.`,
    { groupId },
  );

export const duplicateGrant = (kind: 'user' | 'group' | 'share', id: string): Refusal =>
  refuse(
    'duplicate_grant',
    `The ${kind} ${id} is listed more than once: list each ${kind} once with the access it should have.`,
    { kind, id },
  );

export const shareExists = (name: string, existing: string): Refusal =>
  refuse(
    'share_exists',
    `A share named "${existing}" already exists (names are compared ignoring case): choose another name.`,
    { name, existing },
  );

export const noArray = (): Refusal =>
  refuse('no_array', 'There is no storage array yet: set up the array first, then create shares.');

export const noCache = (cacheMode: string): Refusal =>
  refuse(
    'no_cache',
    `The cache mode ${cacheMode} needs a cache disk and this array has none: choose array-only or add a cache disk.`,
    { cacheMode },
  );

export const migrationInProgress = (): Refusal =>
  refuse(
    'migration_in_progress',
    'An import from another system is pending: finish or cancel the migration, then try again.',
  );

export const shareBusy = (name: string): Refusal =>
  refuse(
    'share_busy',
    `The files of share "${name}" are being deleted: wait until the data delete has finished, then try again.`,
    { name },
  );

export const branchUnsafe = (path: string, why: string): Refusal =>
  refuse(
    'share_branch_unsafe',
    `The branch directory ${path} cannot be used because ${why}: move it aside, then try again.`,
    { path },
  );

export const branchDiskMissing = (mountpoint: string): Refusal =>
  refuse(
    'branch_disk_unavailable',
    `The disk mountpoint ${mountpoint} does not exist: mount the array disks, then try again.`,
    { mountpoint },
  );

export type SmbFailureReason = 'write_failed' | 'validation_failed';

export const SMB_REGENERATION_FAILED_MESSAGE =
  'The access change was saved, but the Samba configuration could not be regenerated, so Samba still enforces the previous access. Fix the cause and save again.';

export const smbRegenerationFailed = (reason: SmbFailureReason): AppError =>
  new AppError(500, 'smb_regeneration_failed', SMB_REGENERATION_FAILED_MESSAGE, { reason });

export const sambaPasswordFailed = (): AppError =>
  new AppError(
    502,
    'samba_password_failed',
    'The Samba password could not be set, so nothing was saved: check that Samba is installed and working, then try again.',
  );

export const sambaAccountFailed = (): AppError =>
  new AppError(
    502,
    'samba_account_failed',
    'The Samba or Unix account could not be removed, so nothing was deleted: check the host accounts, then try again.',
  );
