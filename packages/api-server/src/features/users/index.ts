import { AppError } from '@appliance/common';
import { asc, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import { apiTokens, shareUserPermissions, userGroupMembers, users } from '../../db/schema.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams, PasswordSchema, UsernameSchema } from '../../http/schemas.ts';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import type { Passwords } from '../../services/passwords.ts';
import type { Feature } from '../feature.ts';
import { checkNewUsername, findUser, toUser, userNotFound, UserSchema } from './model.ts';

const cannotModifyAdmin = () =>
  new AppError(
    403,
    'cannot_modify_admin',
    'The administrator account cannot be deleted and its role cannot change (its password can).',
  );

const sambaFailed = (code: string, err: unknown) =>
  new AppError(
    502,
    code,
    'The Samba account could not be updated; nothing was saved. Check the service log.',
    {
      reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown',
    },
  );

const listQuery = preparedPerConnection((db) =>
  db
    .select()
    .from(users)
    .orderBy(asc(sql`lower(${users.username})`))
    .prepare(),
);

/** All users by lowercase name (a cached prepared query). */
function listUsers(db: Db) {
  return listQuery(db).all();
}

export function usersFeature(passwords: Passwords): Feature {
  return {
    name: 'users',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/users',
        role: 'admin',
        summary: 'Create a viewer or file-sharing account',
        tags: ['users'],
        body: v.strictObject({
          username: UsernameSchema,
          role: v.optional(
            v.picklist(['viewer', 'share-only'], 'must be viewer or share-only'),
            'share-only',
          ),
          password: v.optional(PasswordSchema),
        }),
        responses: { 201: { description: 'The new user', schema: UserSchema } },
        handler: async ({ ctx, actor, body }) => {
          // Refuse before any side effect (Samba account) when the name is taken.
          checkNewUsername(ctx, ctx.db, body.username);
          const hash = body.password === undefined ? null : await passwords.hash(body.password);
          if (body.password !== undefined && ctx.hooks.sambaAccounts) {
            await ctx.hooks.sambaAccounts
              .setPassword(body.username.toLowerCase(), body.password)
              .catch((e: unknown) => {
                throw sambaFailed('samba_password_failed', e);
              });
          }
          const now = ctx.clock.now().toISOString();
          const row = await ctx.writes.run((db) => {
            checkNewUsername(ctx, db, body.username, { host: false });
            const inserted = db
              .insert(users)
              .values({
                id: ctx.random.uuid(),
                username: body.username,
                role: body.role,
                passwordHash: hash,
                createdAt: now,
                updatedAt: now,
              })
              .returning()
              .get();
            ctx.audit.record(db, actor, {
              operation: 'user.create',
              target: inserted.username,
              details: { role: inserted.role },
            });
            return inserted;
          });
          return created(toUser(row));
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/users',
        role: 'viewer',
        summary: 'List users by lowercase username',
        tags: ['users'],
        responses: { 200: { description: 'Users', schema: v.object({ users: v.array(UserSchema) }) } },
        handler: ({ ctx }) => ok({ users: listUsers(ctx.db).map(toUser) }),
      }),
      defineRoute({
        method: 'GET',
        path: '/users/:id',
        role: 'viewer',
        summary: 'One user',
        tags: ['users'],
        params: IdParams,
        responses: { 200: { description: 'The user', schema: UserSchema } },
        handler: ({ ctx, params }) => {
          const row = findUser(ctx.db, params.id);
          if (!row) throw userNotFound(params.id);
          return ok(toUser(row));
        },
      }),
      defineRoute({
        method: 'PATCH',
        path: '/users/:id',
        role: 'admin',
        summary: "Change a user's role or password",
        tags: ['users'],
        params: IdParams,
        body: v.pipe(
          v.strictObject({
            role: v.optional(v.picklist(['viewer', 'share-only'], 'must be viewer or share-only')),
            password: v.optional(PasswordSchema),
          }),
          v.check((b) => b.role !== undefined || b.password !== undefined, 'send role, password or both'),
        ),
        responses: { 200: { description: 'The user', schema: UserSchema } },
        handler: async ({ ctx, actor, params, body }) => {
          const current = findUser(ctx.db, params.id);
          if (!current) throw userNotFound(params.id);
          if (current.role === 'admin' && body.role !== undefined) throw cannotModifyAdmin();
          const hash = body.password === undefined ? undefined : await passwords.hash(body.password);
          if (body.password !== undefined && ctx.hooks.sambaAccounts) {
            await ctx.hooks.sambaAccounts
              .setPassword(current.username.toLowerCase(), body.password)
              .catch((e: unknown) => {
                throw sambaFailed('samba_password_failed', e);
              });
          }
          const now = ctx.clock.now().toISOString();
          const row = await ctx.writes.run((db) => {
            const fresh = findUser(db, params.id);
            if (!fresh) throw userNotFound(params.id);
            if (fresh.role === 'admin' && body.role !== undefined) throw cannotModifyAdmin();
            const updated = db
              .update(users)
              .set({
                ...(body.role ? { role: body.role } : {}),
                ...(hash ? { passwordHash: hash } : {}),
                updatedAt: now,
              })
              .where(eq(users.id, params.id))
              .returning()
              .get()!;
            if (body.role === 'share-only') db.delete(apiTokens).where(eq(apiTokens.userId, params.id)).run();
            ctx.audit.record(db, actor, {
              operation: 'user.update',
              target: updated.username,
              details: {
                ...(body.role ? { role: body.role } : {}),
                passwordChanged: body.password !== undefined,
              },
            });
            return updated;
          });
          return ok(toUser(row));
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: '/users/:id',
        role: 'admin',
        summary: 'Delete a user with its tokens, memberships and share grants',
        tags: ['users'],
        params: IdParams,
        responses: { 204: { description: 'Deleted' } },
        handler: async ({ ctx, actor, params }) => {
          const current = findUser(ctx.db, params.id);
          if (!current) throw userNotFound(params.id);
          if (current.role === 'admin') throw cannotModifyAdmin();
          if (ctx.hooks.sambaAccounts) {
            await ctx.hooks.sambaAccounts.remove(current.username.toLowerCase()).catch((e: unknown) => {
              throw sambaFailed('samba_account_failed', e);
            });
          }
          await ctx.writes.run((db) => {
            const fresh = findUser(db, params.id);
            if (!fresh) throw userNotFound(params.id);
            if (fresh.role === 'admin') throw cannotModifyAdmin();
            db.delete(apiTokens).where(eq(apiTokens.userId, params.id)).run();
            db.delete(userGroupMembers).where(eq(userGroupMembers.userId, params.id)).run();
            db.delete(shareUserPermissions).where(eq(shareUserPermissions.userId, params.id)).run();
            db.delete(users).where(eq(users.id, params.id)).run();
            ctx.audit.record(db, actor, { operation: 'user.delete', target: fresh.username });
          });
          await ctx.hooks.regenerateSamba();
          return noContent();
        },
      }),
    ],
  };
}
