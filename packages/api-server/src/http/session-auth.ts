import {
  type Actor,
  type Authenticator,
  checkSessionWrite as checkWrite,
  UI_HEADER,
} from '@appliance/accounts';
import type { Context } from 'hono';

/**
 * The browser session's part of authentication (docs/decisions/web-ui.md; the decisions are in
 * `@appliance/accounts`). A request without an `Authorization` header may carry the session cookie;
 * a cookie that names no live session is 401 `session_ended` on a route that needs a credential.
 */
export function sessionActor(auth: Authenticator, c: Context, needsCredential: boolean): Actor | null {
  return auth.session(c.req.header('cookie'), needsCredential);
}

/** A write authenticated by the cookie must come from the UI's own page (`cross_site_refused`). */
export function checkSessionWrite(c: Context): void {
  checkWrite({
    method: c.req.method,
    uiHeader: c.req.header(UI_HEADER),
    secFetchSite: c.req.header('sec-fetch-site'),
    origin: c.req.header('origin'),
    ownOrigin: () => new URL(c.req.url).origin,
  });
}
