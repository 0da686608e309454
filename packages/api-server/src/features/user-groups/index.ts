import { AppError } from '@appliance/common';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { Db } from '../../db/open.ts';
import { shareGroupPermissions, userGroupMembers, userGroups, users } from '../../db/schema.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams, Uuid } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';

const GroupSchema = v.object({ id: v.string(), name: v.string(), memberUserIds: v.array(v.string()) });

const groupNotFound = (id: string) =>
  new AppError(404, 'group_not_found', `No user group has the id ${id}.`, { groupId: id });

function loadGroup(db: Db, id: string) {
  const g = db.select().from(userGroups).where(eq(userGroups.id, id)).get();
  if (!g) return undefined;
  const members = db
    .select({ userId: userGroupMembers.userId })
    .from(userGroupMembers)
    .where(eq(userGroupMembers.groupId, id))
    .all()
    .map((m) => m.userId)
    .sort();
  return { id: g.id, name: g.name, memberUserIds: members };
}

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
      handler: async ({ ctx, actor, body }) => {
        const group = await ctx.writes.run((db) => {
          const taken = db
            .select({ id: userGroups.id })
            .from(userGroups)
            .where(sql`lower(${userGroups.name}) = lower(${body.name})`)
            .get();
          if (taken)
            throw new AppError(
              409,
              'group_exists',
              `A group named ${body.name} already exists (names are compared ignoring case).`,
            );
          const id = ctx.random.uuid();
          db.insert(userGroups)
            .values({ id, name: body.name, createdAt: ctx.clock.now().toISOString() })
            .run();
          ctx.audit.record(db, actor, { operation: 'user_group.create', target: body.name });
          return { id, name: body.name, memberUserIds: [] as string[] };
        });
        return created(group);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups',
      role: 'viewer',
      summary: 'List user groups by lowercase name',
      tags: ['user-groups'],
      responses: { 200: { description: 'Groups', schema: v.object({ groups: v.array(GroupSchema) }) } },
      handler: ({ ctx }) => {
        const groups = ctx.db
          .select()
          .from(userGroups)
          .orderBy(asc(sql`lower(${userGroups.name})`))
          .all();
        const members = ctx.db.select().from(userGroupMembers).all();
        return ok({
          groups: groups.map((g) => ({
            id: g.id,
            name: g.name,
            memberUserIds: members
              .filter((m) => m.groupId === g.id)
              .map((m) => m.userId)
              .sort(),
          })),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user-groups/:id',
      role: 'viewer',
      summary: 'One user group',
      tags: ['user-groups'],
      params: IdParams,
      responses: { 200: { description: 'The group', schema: GroupSchema } },
      handler: ({ ctx, params }) => {
        const g = loadGroup(ctx.db, params.id);
        if (!g) throw groupNotFound(params.id);
        return ok(g);
      },
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
        await ctx.writes.run((db) => {
          const g = db.select().from(userGroups).where(eq(userGroups.id, params.id)).get();
          if (!g) throw groupNotFound(params.id);
          db.delete(userGroupMembers).where(eq(userGroupMembers.groupId, params.id)).run();
          db.delete(shareGroupPermissions).where(eq(shareGroupPermissions.groupId, params.id)).run();
          db.delete(userGroups).where(eq(userGroups.id, params.id)).run();
          ctx.audit.record(db, actor, { operation: 'user_group.delete', target: g.name });
        });
        await ctx.hooks.regenerateSamba();
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
      handler: async ({ ctx, actor, params, body }) => {
        const group = await ctx.writes.run((db) => {
          const g = db.select().from(userGroups).where(eq(userGroups.id, params.id)).get();
          if (!g) throw groupNotFound(params.id);
          if (body.userIds.length > 0) {
            const known = new Set(
              db
                .select({ id: users.id })
                .from(users)
                .where(inArray(users.id, body.userIds))
                .all()
                .map((u) => u.id),
            );
            const unknown = body.userIds.find((id) => !known.has(id));
            if (unknown)
              throw new AppError(404, 'user_not_found', `No user has the id ${unknown}.`, {
                userId: unknown,
              });
          }
          db.delete(userGroupMembers).where(eq(userGroupMembers.groupId, params.id)).run();
          if (body.userIds.length > 0) {
            db.insert(userGroupMembers)
              .values(body.userIds.map((userId) => ({ groupId: params.id, userId })))
              .run();
          }
          ctx.audit.record(db, actor, {
            operation: 'user_group.members_update',
            target: g.name,
            details: { members: body.userIds.length },
          });
          return loadGroup(db, params.id)!;
        });
        await ctx.hooks.regenerateSamba();
        return ok(group);
      },
    }),
  ],
};
