import { type Authenticator, createAdmin, resetAdminPassword, setupStatus } from '@appliance/accounts';
import * as v from 'valibot';
import { created, defineRoute, ok } from '../../http/route.ts';
import { PasswordSchema, UsernameSchema } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { UserSchema } from '../users/model.ts';
import { setupDeps } from './deps.ts';

export function setupFeature(auth: Authenticator): Feature {
  return {
    name: 'setup',
    // A local password reset (POST /admin/reset-password, the Unix socket only).
    raises: ['credential_reset'],
    routes: [
      defineRoute({
        method: 'GET',
        path: '/setup/status',
        role: 'public',
        ungated: true,
        summary: 'Whether the first administrator still has to be created',
        tags: ['setup'],
        responses: { 200: { description: 'Setup state', schema: v.object({ setupRequired: v.boolean() }) } },
        handler: () => ok(setupStatus(auth)),
      }),
      defineRoute({
        method: 'POST',
        path: '/setup/admin',
        role: 'public',
        ungated: true,
        summary: 'Create the one administrator account',
        tags: ['setup'],
        body: v.strictObject({ username: UsernameSchema, password: PasswordSchema }),
        responses: { 201: { description: 'The admin account', schema: v.object({ user: UserSchema }) } },
        handler: async ({ ctx, actor, body }) =>
          created(await createAdmin(setupDeps(ctx, actor, auth), body)),
      }),
      defineRoute({
        method: 'POST',
        path: '/admin/reset-password',
        role: 'admin',
        socketOnly: true,
        summary:
          "Reset the administrator's password on the appliance itself (Unix socket only: `appliance admin reset-password`); raises credential_reset",
        tags: ['setup'],
        body: v.strictObject({
          password: PasswordSchema,
          /** Also revoke every API token of the administrator. */
          revokeTokens: v.optional(v.boolean(), false),
        }),
        responses: {
          200: {
            description: 'The administrator, and how many of its tokens were revoked',
            schema: v.object({ user: UserSchema, tokensRevoked: v.number() }),
          },
        },
        handler: async ({ ctx, actor, body }) =>
          ok(await resetAdminPassword(setupDeps(ctx, actor, auth), body)),
      }),
    ],
  };
}
