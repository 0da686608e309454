import { AppError } from '@appliance/common';
import type { Context } from 'hono';
import * as v from 'valibot';
import { defineRoute, noContent, ok } from '../../http/route.ts';
import { checkSessionWrite } from '../../http/session-auth.ts';
import type { Authenticator } from '../../services/auth.ts';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE, sessionSecret } from '../../services/sessions.ts';
import type { Feature } from '../feature.ts';

const Who = v.object({
  username: v.string(),
  role: v.picklist(['admin', 'viewer']),
  /** How this request was authenticated. */
  via: v.picklist(['session', 'token', 'local']),
});

const loginFailed = () =>
  new AppError(401, 'login_failed', 'The username or password is not right; check both and try again.');

function cookie(c: Context, value: string, maxAgeSeconds: number): string {
  const secure = new URL(c.req.url).protocol === 'https:' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * Browser sign-in (docs/decisions/web-ui.md): `POST /session` checks a password with the same
 * lock-out as Basic and sets an HttpOnly, SameSite=Strict cookie naming a server-side session;
 * `DELETE /session` ends it server-side; `GET /session` says who is signed in.
 */
export const sessionFeature = (auth: Authenticator): Feature => ({
  name: 'session',
  raises: ['login_failure_burst'],
  routes: [
    defineRoute({
      method: 'POST',
      path: '/session',
      role: 'public',
      summary: 'Sign in a browser: sets the session cookie (the web UI; scripts use tokens)',
      tags: ['session'],
      body: v.strictObject({
        username: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256)),
        password: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(1024)),
      }),
      responses: {
        200: {
          description: 'Signed in; the cookie is set',
          schema: v.object({ ...Who.entries, expiresAt: v.string() }),
        },
      },
      handler: async ({ c, body }) => {
        // Sign-in too must come from the UI's page: no cross-site login into the attacker's account.
        checkSessionWrite(c);
        const remote = (c.env as { remoteAddress?: string } | undefined)?.remoteAddress ?? 'unknown';
        let actor: Awaited<ReturnType<Authenticator['login']>>;
        try {
          actor = await auth.login(body.username, body.password, remote);
        } catch (err) {
          if (err instanceof AppError && err.code === 'unauthorized') throw loginFailed();
          if (err instanceof AppError && err.code === 'share_only_no_api_token')
            throw new AppError(
              403,
              'share_only_no_web_ui',
              'This is a file-sharing account; it cannot sign in to the web UI. Sign in with an administrator or viewer account.',
            );
          throw err;
        }
        const session = await auth.sessions.open(actor.userId!);
        c.header('Set-Cookie', cookie(c, session.secret, SESSION_ABSOLUTE_MS / 1000));
        c.header('Cache-Control', 'no-store');
        return ok({
          username: actor.username,
          role: actor.role,
          via: 'session',
          expiresAt: session.expiresAt,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/session',
      role: 'viewer',
      summary: 'Who is signed in (the session, token or socket of this request)',
      tags: ['session'],
      responses: { 200: { description: 'The caller', schema: Who } },
      handler: ({ actor, c }) => {
        const via = actor!.kind === 'local' ? 'local' : c.req.header('authorization') ? 'token' : 'session';
        return ok({ username: actor!.username, role: actor!.role, via });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/session',
      role: 'viewer',
      summary: 'Sign out: ends the browser session server-side and clears the cookie',
      tags: ['session'],
      responses: { 204: { description: 'Signed out' } },
      handler: async ({ c }) => {
        const secret = sessionSecret(c.req.header('cookie'));
        if (secret !== null) await auth.sessions.end(secret);
        c.header('Set-Cookie', cookie(c, '', 0));
        return noContent();
      },
    }),
  ],
});
