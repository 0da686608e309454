import { type Authenticator, authenticatedVia, signIn, signOut } from '@appliance/accounts';
import type { Context } from 'hono';
import * as v from 'valibot';
import { defineRoute, noContent, ok } from '../../http/route.ts';
import { checkSessionWrite } from '../../http/session-auth.ts';
import type { Feature } from '../feature.ts';

const Who = v.object({
  username: v.string(),
  role: v.picklist(['admin', 'viewer']),
  /** How this request was authenticated. */
  via: v.picklist(['session', 'token', 'local']),
});

const secure = (c: Context) => new URL(c.req.url).protocol === 'https:';

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
        const { cookie, ...answer } = await signIn(auth, { ...body, source: remote, secure: secure(c) });
        c.header('Set-Cookie', cookie);
        c.header('Cache-Control', 'no-store');
        return ok(answer);
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
        const via = authenticatedVia(actor!, Boolean(c.req.header('authorization')));
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
        c.header('Set-Cookie', await signOut(auth, c.req.header('cookie'), secure(c)));
        return noContent();
      },
    }),
  ],
});
