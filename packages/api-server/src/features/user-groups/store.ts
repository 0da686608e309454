import type { GroupsStore, GroupsTx, GroupsView } from '@appliance/accounts';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { shareGroupPermissions, userGroupMembers, userGroups, users } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

function groupsView(db: Db): GroupsView {
  return {
    list: () =>
      db
        .select()
        .from(userGroups)
        .orderBy(asc(sql`lower(${userGroups.name})`))
        .all(),
    memberships: () => db.select().from(userGroupMembers).all(),
    find: (id) => db.select().from(userGroups).where(eq(userGroups.id, id)).get(),
    members: (groupId) =>
      db
        .select({ userId: userGroupMembers.userId })
        .from(userGroupMembers)
        .where(eq(userGroupMembers.groupId, groupId))
        .all()
        .map((m) => m.userId),
  };
}

function groupsTx(ctx: AppContext, db: Db, actor: Actor | null): GroupsTx {
  return {
    ...groupsView(db),
    nameTaken: (name) =>
      db
        .select({ id: userGroups.id })
        .from(userGroups)
        .where(sql`lower(${userGroups.name}) = lower(${name})`)
        .get() !== undefined,
    insert: (row) => void db.insert(userGroups).values(row).run(),
    delete(id) {
      db.delete(userGroupMembers).where(eq(userGroupMembers.groupId, id)).run();
      db.delete(shareGroupPermissions).where(eq(shareGroupPermissions.groupId, id)).run();
      db.delete(userGroups).where(eq(userGroups.id, id)).run();
    },
    knownUsers: (ids) =>
      new Set(
        db
          .select({ id: users.id })
          .from(users)
          .where(inArray(users.id, ids))
          .all()
          .map((u) => u.id),
      ),
    setMembers(groupId, userIds) {
      db.delete(userGroupMembers).where(eq(userGroupMembers.groupId, groupId)).run();
      if (userIds.length > 0) {
        db.insert(userGroupMembers)
          .values(userIds.map((userId) => ({ groupId, userId })))
          .run();
      }
    },
    audit: (entry) => void ctx.audit.record(db, actor, entry),
  };
}

/** The user-group store of `@appliance/accounts` (`user_groups`, their members, share grants). */
export function createGroupsStore(ctx: AppContext, actor: Actor | null): GroupsStore {
  return {
    ...groupsView(ctx.db),
    write: (fn) => ctx.writes.run((db) => fn(groupsTx(ctx, db, actor))),
  };
}
