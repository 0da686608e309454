import { AppError } from '@appliance/common';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { apiTokens, users } from '../../db/schema.ts';
import { created, defineRoute, ok } from '../../http/route.ts';
import { PasswordSchema, UsernameSchema } from '../../http/schemas.ts';
import type { Authenticator } from '@appliance/accounts';
import type { Feature } from '../feature.ts';
import { readSettings } from '../settings/index.ts';
import { checkNewUsername, toUser, UserSchema } from '../users/model.ts';

const setupComplete = () =>
  new AppError(409, 'setup_complete', 'An administrator already exists; log in with it instead.');

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
        handler: () => ok({ setupRequired: !auth.adminExists() }),
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
        handler: async ({ ctx, actor, body }) => {
          if (auth.adminExists()) throw setupComplete();
          // Refuse before any side effect (the Unix and Samba account) when the name is taken.
          checkNewUsername(ctx, ctx.db, body.username);
          const hash = await auth.passwords.hash(body.password);
          await ctx.hooks.sambaAccounts
            ?.setPassword(body.username.toLowerCase(), body.password)
            .catch((err: unknown) => {
              throw new AppError(
                502,
                'samba_password_failed',
                'Setting the Samba password failed; nothing was saved. Check the service log.',
                {
                  reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown',
                },
              );
            });
          const now = ctx.clock.now().toISOString();
          const row = await ctx.writes.run((db) => {
            // Check and insert in one IMMEDIATE transaction; the partial unique index
            // users_one_admin is the last line of defence.
            const admin = db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).get();
            if (admin) throw setupComplete();
            checkNewUsername(ctx, db, body.username, { host: false });
            const inserted = db
              .insert(users)
              .values({
                id: ctx.random.uuid(),
                username: body.username,
                role: 'admin',
                passwordHash: hash,
                createdAt: now,
                updatedAt: now,
              })
              .returning()
              .get();
            ctx.audit.record(db, actor, { operation: 'setup.admin_create', target: inserted.username });
            return inserted;
          });
          auth.resetAdminCache();
          return created({ user: toUser(row) });
        },
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
        handler: async ({ ctx, actor, body }) => {
          const admin = ctx.db.select().from(users).where(eq(users.role, 'admin')).get();
          if (!admin)
            throw new AppError(
              409,
              'setup_required',
              'No administrator exists yet: create one with appliance admin create.',
            );
          const hash = await auth.passwords.hash(body.password);
          await ctx.hooks.sambaAccounts
            ?.setPassword(admin.username.toLowerCase(), body.password)
            .catch((err: unknown) => {
              throw new AppError(
                502,
                'samba_password_failed',
                'Setting the Samba password failed; nothing was saved. Check the service log.',
                { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
              );
            });
          const now = ctx.clock.now().toISOString();
          const done = await ctx.writes.run((db) => {
            const row = db
              .update(users)
              .set({ passwordHash: hash, updatedAt: now })
              .where(eq(users.id, admin.id))
              .returning()
              .get();
            const tokensRevoked = body.revokeTokens
              ? db.delete(apiTokens).where(eq(apiTokens.userId, admin.id)).run().changes
              : 0;
            ctx.audit.record(db, actor, {
              operation: 'admin.reset_password',
              target: admin.username,
              details: { tokensRevoked },
            });
            const host = readSettings(db).hostname;
            const event = {
              eventType: 'credential_reset',
              title: `Administrator password reset on ${host}`,
              message: `The password of the administrator ${admin.username} of ${host} was reset on the appliance itself (appliance admin reset-password, through the service's Unix socket) at ${now}${tokensRevoked > 0 ? `; the ${tokensRevoked} API token${tokensRevoked === 1 ? '' : 's'} of the account ${tokensRevoked === 1 ? 'was' : 'were'} revoked` : ''}. If you did not do this, someone with root access to the appliance did: set a new password and check who can log in to the machine.`,
            };
            // raised in the same commit as the reset: no reset goes unannounced
            const raised = ctx.hooks.raiseWithin?.(db, event) ?? null;
            return { row, tokensRevoked, raised, event };
          });
          if (done.raised) done.raised.announce();
          else await ctx.hooks.raise?.(done.event);
          // the lock-out of the account's password logins ends with the reset
          auth.lockout.succeed([`user:${admin.username.toLowerCase()}`]);
          return ok({ user: toUser(done.row), tokensRevoked: done.tokensRevoked });
        },
      }),
    ],
  };
}
