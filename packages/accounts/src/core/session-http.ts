import { crossSiteRefused } from './refusals.ts';

/** The cookie that carries a browser session (docs/decisions/web-ui.md). */
export const SESSION_COOKIE = 'appliance_session';
/** The header every write of the web UI carries; a cookie write without it is refused. */
export const UI_HEADER = 'x-appliance-ui';

/** The session secret of a request's `Cookie` header, if any. */
export function sessionSecret(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The `Set-Cookie` value of a session (an empty value with 0 clears it): HttpOnly, SameSite=Strict. */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** What a cookie-authenticated request shows of where it comes from. */
export interface SessionWrite {
  method: string;
  /** The `X-Appliance-UI` header. */
  uiHeader: string | undefined;
  /** The `Sec-Fetch-Site` header. */
  secFetchSite: string | undefined;
  /** The `Origin` header. */
  origin: string | undefined;
  /** The origin of the request's own URL. */
  ownOrigin: () => string;
}

/**
 * A write authenticated by the cookie must prove it comes from the UI's own page: the custom
 * header (a cross-site form cannot send one, and a cross-site fetch that tries needs a CORS
 * preflight this service never grants) and a same-origin `Sec-Fetch-Site` or `Origin`.
 * Throws `cross_site_refused` otherwise.
 */
export function checkSessionWrite(req: SessionWrite): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const header = req.uiHeader === '1';
  const site = req.secFetchSite;
  const sameOrigin =
    site === 'same-origin' ||
    (site === undefined && req.origin !== undefined && req.origin === req.ownOrigin());
  if (!header || !sameOrigin) throw crossSiteRefused();
}
