import { createUser, deleteUser, getUser, listUsers, type Passwords, updateUser } from '@appliance/accounts';
import * as v from 'valibot';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams, PasswordSchema, UsernameSchema } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { usersDeps } from './deps.ts';
import { UserSchema } from './model.ts';
import { usersView } from './store.ts';

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
        handler: async ({ ctx, actor, body }) =>
          created(await createUser(usersDeps(ctx, actor, passwords), body)),
      }),
      defineRoute({
        method: 'GET',
        path: '/users',
        role: 'viewer',
        summary: 'List users by lowercase username',
        tags: ['users'],
        responses: { 200: { description: 'Users', schema: v.object({ users: v.array(UserSchema) }) } },
        handler: ({ ctx }) => ok({ users: listUsers(usersView(ctx.db)) }),
      }),
      defineRoute({
        method: 'GET',
        path: '/users/:id',
        role: 'viewer',
        summary: 'One user',
        tags: ['users'],
        params: IdParams,
        responses: { 200: { description: 'The user', schema: UserSchema } },
        handler: ({ ctx, params }) => ok(getUser(usersView(ctx.db), params.id)),
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
        handler: async ({ ctx, actor, params, body }) =>
          ok(await updateUser(usersDeps(ctx, actor, passwords), params.id, body)),
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
          await deleteUser(usersDeps(ctx, actor, passwords), params.id);
          return noContent();
        },
      }),
    ],
  };
}
