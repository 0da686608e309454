import { Refusal, refuse } from '@appliance/common';
import type { Authenticator } from '../authenticator.ts';
import type { Actor } from '../core/roles.ts';
import { sessionCookie, sessionSecret } from '../core/session-http.ts';
import { SESSION_ABSOLUTE_MS } from '../sessions.ts';

/** What a browser sign-in answers, and the cookie it sets. */
export interface SignedIn {
  username: string;
  role: Actor['role'];
  via: 'session';
  expiresAt: string;
  /** The `Set-Cookie` value naming the new session. */
  cookie: string;
}

/**
 * Browser sign-in (docs/decisions/web-ui.md): checks a password with the same lock-out as Basic
 * and opens a server-side session. A wrong name or password is `login_failed`, a file-sharing
 * account `share_only_no_web_ui`; the lock-out's `rate_limited` passes through.
 */
export async function signIn(
  auth: Authenticator,
  input: { username: string; password: string; source: string; secure: boolean },
): Promise<SignedIn> {
  let actor: Actor;
  try {
    actor = await auth.login(input.username, input.password, input.source);
  } catch (err) {
    if (err instanceof Refusal && err.code === 'unauthorized')
      throw refuse('login_failed', 'The username or password is not right; check both and try again.');
    if (err instanceof Refusal && err.code === 'share_only_no_api_token')
      throw refuse(
        'share_only_no_web_ui',
        'This is a file-sharing account; it cannot sign in to the web UI. Sign in with an administrator or viewer account.',
      );
    throw err;
  }
  const session = await auth.sessions.open(actor.userId!);
  return {
    username: actor.username,
    role: actor.role,
    via: 'session',
    expiresAt: session.expiresAt,
    cookie: sessionCookie(session.secret, SESSION_ABSOLUTE_MS / 1000, input.secure),
  };
}

/** How a request was authenticated: the Unix socket, a token (an `Authorization` header) or the session. */
export function authenticatedVia(actor: Actor, hasAuthorization: boolean): 'local' | 'token' | 'session' {
  return actor.kind === 'local' ? 'local' : hasAuthorization ? 'token' : 'session';
}

/** Sign-out: ends the session the cookie names (if any) server-side; the `Set-Cookie` that clears it. */
export async function signOut(
  auth: Authenticator,
  cookieHeader: string | undefined,
  secure: boolean,
): Promise<string> {
  const secret = sessionSecret(cookieHeader);
  if (secret !== null) await auth.sessions.end(secret);
  return sessionCookie('', 0, secure);
}
