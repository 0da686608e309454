import { AppError } from '@appliance/common';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { users } from '../../db/schema.ts';
import { created, defineRoute, ok } from '../../http/route.ts';
import { PasswordSchema, UsernameSchema } from '../../http/schemas.ts';
import type { Authenticator } from '../../services/auth.ts';
import type { Feature } from '../feature.ts';
import { checkNewUsername, toUser, UserSchema } from '../users/model.ts';

const setupComplete = () =>
  new AppError(409, 'setup_complete', 'An administrator already exists; log in with it instead.');

export function setupFeature(auth: Authenticator): Feature {
  return {
    name: 'setup',
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
    ],
  };
}
