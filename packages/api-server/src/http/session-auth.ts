import {
  type Actor,
  type Authenticator,
  authenticateRequest,
  checkSessionWrite as checkWrite,
  type SessionWrite,
  UI_HEADER,
} from '@appliance/accounts';
import type { Context } from 'hono';

/**
 * A request's credential (docs/decisions/web-ui.md; the decisions are `@appliance/accounts`'
 * `authenticateRequest`): the Unix socket, a Bearer token, Basic where the route allows it, or the
 * browser session's cookie, whose writes must come from the UI's own page.
 */
export function authenticate(
  auth: Authenticator,
  route: { role: string; allowBasic?: boolean | undefined },
  c: Context,
  transport: 'tcp' | 'unix',
): Promise<Actor | null> {
  return authenticateRequest(auth, {
    local: transport === 'unix',
    authorization: c.req.header('authorization'),
    allowBasic: route.allowBasic === true,
    needsCredential: route.role !== 'public',
    source: (c.env as { remoteAddress?: string } | undefined)?.remoteAddress ?? 'unknown',
    cookie: () => c.req.header('cookie'),
    sessionWrite: () => sessionWriteOf(c),
  });
}

/** A write authenticated by the cookie must come from the UI's own page (`cross_site_refused`). */
export function checkSessionWrite(c: Context): void {
  checkWrite(sessionWriteOf(c));
}

function sessionWriteOf(c: Context): SessionWrite {
  return {
    method: c.req.method,
    uiHeader: c.req.header(UI_HEADER),
    secFetchSite: c.req.header('sec-fetch-site'),
    origin: c.req.header('origin'),
    ownOrigin: () => new URL(c.req.url).origin,
  };
}
