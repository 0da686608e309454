import { type Authenticator, issueToken, listTokens, revokeToken } from '@appliance/accounts';
import * as v from 'valibot';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams, Iso } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { tokensDeps } from './deps.ts';

const TokenSchema = v.object({
  id: v.string(),
  name: v.string(),
  role: v.picklist(['admin', 'viewer']),
  userId: v.string(),
  username: v.string(),
  createdAt: Iso,
  expiresAt: v.nullable(Iso),
  /** The last request made with the token, exact to within a minute; null when never used. */
  lastUsedAt: v.nullable(Iso),
});

const CreateBody = v.strictObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(128, 'must be at most 128 characters'),
  ),
  role: v.picklist(['admin', 'viewer'], 'must be admin or viewer'),
  expiresInSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(315_360_000))),
  userId: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f-]{36}$/, 'must be a lowercase UUID'))),
});

export const tokensFeature = (auth: Authenticator): Feature => ({
  name: 'tokens',
  // Password logins (Basic, on POST /tokens) cross the lock-out threshold (@appliance/accounts).
  raises: ['login_failure_burst'],
  routes: [
    defineRoute({
      method: 'POST',
      path: '/tokens',
      role: 'viewer',
      allowBasic: true,
      summary: 'Create a personal API token (Bearer, Basic or the Unix socket)',
      tags: ['tokens'],
      body: CreateBody,
      responses: {
        201: {
          description: 'The token; `token` is shown only here',
          schema: v.object({ ...TokenSchema.entries, token: v.string() }),
        },
      },
      handler: async ({ ctx, actor, body }) =>
        created(await issueToken(tokensDeps(ctx, actor, auth), actor!, body)),
    }),
    defineRoute({
      method: 'GET',
      path: '/tokens',
      role: 'viewer',
      summary: 'List tokens (all for the admin, your own for a viewer)',
      tags: ['tokens'],
      responses: {
        200: { description: 'Tokens, newest first', schema: v.object({ tokens: v.array(TokenSchema) }) },
      },
      handler: ({ ctx, actor }) => ok({ tokens: listTokens(tokensDeps(ctx, actor, auth), actor!) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/tokens/:id',
      role: 'viewer',
      summary: 'Revoke a token (a viewer only its own); revoking the calling token logs out',
      tags: ['tokens'],
      params: IdParams,
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ ctx, actor, params }) => {
        await revokeToken(tokensDeps(ctx, actor, auth), actor!, params.id);
        return noContent();
      },
    }),
  ],
});
