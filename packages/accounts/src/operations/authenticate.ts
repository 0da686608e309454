import type { Authenticator } from '../authenticator.ts';
import { unauthorized } from '../core/refusals.ts';
import type { Actor } from '../core/roles.ts';
import { checkSessionWrite, type SessionWrite } from '../core/session-http.ts';

/** What authentication reads of one request. */
export interface CredentialRequest {
  /** The request came over the Unix socket: the local administrator. */
  local: boolean;
  /** The `Authorization` header. */
  authorization: string | undefined;
  /** Whether the route takes Basic credentials (creating a token with a password). */
  allowBasic: boolean;
  /** Whether the route needs a credential (a public route ignores a cookie naming no live session). */
  needsCredential: boolean;
  /** The peer's address (a key of the login lock-out). */
  source: string;
  /** The `Cookie` header (read only when there is no `Authorization` header). */
  cookie(): string | undefined;
  /** Where a cookie-authenticated request comes from (read only for a live session). */
  sessionWrite(): SessionWrite;
}

/**
 * Resolves a request's credential to an Actor: the Unix socket is the local administrator; without
 * an `Authorization` header, the browser session's cookie (a write with it must also prove it comes
 * from the UI's page: `cross_site_refused`); `Bearer` an API token; `Basic` a password where the
 * route allows it; any other scheme is `unauthorized`. Null when the request carries no credential
 * (the role check refuses it where one is needed).
 */
export async function authenticateRequest(
  auth: Authenticator,
  req: CredentialRequest,
): Promise<Actor | null> {
  if (req.local) return auth.localActor();
  const header = req.authorization;
  if (!header) {
    const session = auth.session(req.cookie(), req.needsCredential);
    if (session) checkSessionWrite(req.sessionWrite());
    return session;
  }
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'bearer') return auth.bearer(value);
  if (scheme === 'basic' && req.allowBasic) return auth.basic(value, req.source);
  throw unauthorized();
}
