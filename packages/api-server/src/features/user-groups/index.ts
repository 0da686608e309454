import { createGroup, deleteGroup, getGroup, listGroups, setGroupMembers } from '@appliance/accounts';
import * as v from 'valibot';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams, Uuid } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { groupsDeps } from './deps.ts';
import { createGroupsStore } from './store.ts';

const GroupSchema = v.object({ id: v.string(), name: v.string(), memberUserIds: v.array(v.string()) });

const GroupName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(64, 'must be at most 64 characters'),
  v.regex(/^[^\p{Cc}]*$/u, 'must not contain control characters'),
);

export const userGroupsFeature: Feature = {
  name: 'user-groups',
  routes: [
    defineRoute({
      method: 'POST',
      path: '/user-groups',
      role: 'admin',
      summary: 'Create a user group (to grant share access in bulk)',
      tags: ['user-groups'],
      body: v.strictObject({ name: GroupName }),
      responses: { 201: { description: 'The group', schema: GroupSchema } },
      handler: async ({ ctx, actor, body }) => created(await createGroup(groupsDeps(ctx, actor), body.name)),
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups',
      role: 'viewer',
      summary: 'List user groups by lowercase name',
      tags: ['user-groups'],
      responses: { 200: { description: 'Groups', schema: v.object({ groups: v.array(GroupSchema) }) } },
      handler: ({ ctx }) => ok({ groups: listGroups(createGroupsStore(ctx, null)) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups/:id',
      role: 'viewer',
      summary: 'One user group',
      tags: ['user-groups'],
      params: IdParams,
      responses: { 200: { description: 'The group', schema: GroupSchema } },
      handler: ({ ctx, params }) => ok(getGroup(createGroupsStore(ctx, null), params.id)),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user-groups/:id',
      role: 'admin',
      summary: 'Delete a group with its memberships and share grants',
      tags: ['user-groups'],
      params: IdParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ ctx, actor, params }) => {
        await deleteGroup(groupsDeps(ctx, actor), params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/user-groups/:id/members',
      role: 'admin',
      summary: "Replace a group's members",
      tags: ['user-groups'],
      params: IdParams,
      body: v.strictObject({
        userIds: v.pipe(
          v.array(Uuid),
          v.maxLength(1000, 'must list at most 1,000 users'),
          v.check((ids) => new Set(ids).size === ids.length, 'must not list a user twice'),
        ),
      }),
      responses: { 200: { description: 'The group', schema: GroupSchema } },
      handler: async ({ ctx, actor, params, body }) =>
        ok(await setGroupMembers(groupsDeps(ctx, actor), params.id, body.userIds)),
    }),
  ],
};
