import { refuse } from '@appliance/common';

/**
 * The refusals of the accounts operations: a code and a sentence (the server's error map gives
 * each code its HTTP status: 401 for a missing or ended credential, 403 for a role or account
 * kind that may not, 404 for an unknown id, 429 for the lock-out, 502 for a failed Samba
 * account, 503 for a full password queue, 409 otherwise).
 */
export const unauthorized = () =>
  refuse('unauthorized', 'Send a valid credential: Authorization: Bearer <API token>.');

export const forbidden = (message: string) => refuse('forbidden', message);

export const rateLimited = (wait: number) =>
  refuse('rate_limited', `Too many failed logins; try again in ${wait} seconds.`, {
    retryAfterSeconds: wait,
  });

export const shareOnlyLogin = () =>
  refuse(
    'share_only_no_api_token',
    'This is a file-sharing account; it cannot use the API or create tokens.',
  );

export const tooBusy = () =>
  refuse('too_busy', 'Too many password checks are running; try again in a few seconds.');

export const userNotFound = (id: string) =>
  refuse('user_not_found', `No user has the id ${id}.`, { userId: id });

export const userExists = (username: string) =>
  refuse('user_exists', `A user named ${username} already exists (names are compared ignoring case).`);

export const usernameUnavailable = (username: string) =>
  refuse('username_unavailable', `${username} is a system account of this machine; choose another name.`);

export const cannotModifyAdmin = () =>
  refuse(
    'cannot_modify_admin',
    'The administrator account cannot be deleted and its role cannot change (its password can).',
  );

export const sambaFailed = (code: 'samba_password_failed' | 'samba_account_failed', err: unknown) =>
  refuse(code, 'The Samba account could not be updated; nothing was saved. Check the service log.', {
    reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown',
  });

export const groupNotFound = (id: string) =>
  refuse('group_not_found', `No user group has the id ${id}.`, { groupId: id });

export const sessionEnded = () =>
  refuse('session_ended', 'Your session has ended (signed out or expired); sign in again.');

export const crossSiteRefused = () =>
  refuse(
    'cross_site_refused',
    'A write made with the browser session must come from the appliance web UI itself (same origin, with its X-Appliance-UI header); reload the page and try again.',
  );
