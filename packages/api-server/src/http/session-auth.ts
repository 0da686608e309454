import { AppError } from '@appliance/common';
import type { Context } from 'hono';
import type { Actor } from '../services/audit.ts';
import type { Authenticator } from '../services/auth.ts';
import { UI_HEADER, sessionSecret } from '../services/sessions.ts';

/**
 * The browser session's part of authentication (docs/decisions/web-ui.md). A request without an
 * `Authorization` header may carry the session cookie; a cookie that names no live session is
 * 401 `session_ended` on a route that needs a credential (a public route ignores it).
 */
export function sessionActor(auth: Authenticator, c: Context, needsCredential: boolean): Actor | null {
  const secret = sessionSecret(c.req.header('cookie'));
  if (secret === null) return null;
  const actor = auth.sessions.actor(secret);
  if (actor === null && needsCredential) throw sessionEnded();
  return actor;
}

/**
 * A write authenticated by the cookie must prove it comes from the UI's own page: the custom
 * header (a cross-site form cannot send one, and a cross-site fetch that tries needs a CORS
 * preflight this service never grants) and a same-origin `Sec-Fetch-Site` or `Origin`.
 */
export function checkSessionWrite(c: Context): void {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return;
  const header = c.req.header(UI_HEADER) === '1';
  const site = c.req.header('sec-fetch-site');
  const origin = c.req.header('origin');
  const sameOrigin =
    site === 'same-origin' || (site === undefined && origin !== undefined && origin === ownOrigin(c));
  if (!header || !sameOrigin) throw crossSiteRefused();
}

function ownOrigin(c: Context): string {
  return new URL(c.req.url).origin;
}

export const sessionEnded = () =>
  new AppError(401, 'session_ended', 'Your session has ended (signed out or expired); sign in again.');

export const crossSiteRefused = () =>
  new AppError(
    403,
    'cross_site_refused',
    'A write made with the browser session must come from the appliance web UI itself (same origin, with its X-Appliance-UI header); reload the page and try again.',
  );
