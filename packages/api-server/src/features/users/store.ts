import type { UsersStore, UsersTx, UsersView } from '@appliance/accounts';
import { asc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import { apiTokens, shareUserPermissions, userGroupMembers, users } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

const listQuery = preparedPerConnection((db) =>
  db
    .select()
    .from(users)
    .orderBy(asc(sql`lower(${users.username})`))
    .prepare(),
);

/** The users reads of `@appliance/accounts` on a handle (the service's, or a write job's). */
export function usersView(db: Db): UsersView {
  return {
    // All users by lowercase name (a cached prepared query: `GET /users` is the hot path).
    list: () => listQuery(db).all(),
    find: (id) => db.select().from(users).where(eq(users.id, id)).get(),
    nameTaken: (username) =>
      db
        .select({ id: users.id })
        .from(users)
        .where(sql`lower(${users.username}) = lower(${username})`)
        .get() !== undefined,
  };
}

/** The users writes of `@appliance/accounts` inside one write job (the setup store adds to them). */
export function usersTx(ctx: AppContext, db: Db, actor: Actor | null): UsersTx {
  return {
    ...usersView(db),
    insert: (row) => db.insert(users).values(row).returning().get(),
    update: (id, patch) => db.update(users).set(patch).where(eq(users.id, id)).returning().get()!,
    deleteTokens: (userId) => void db.delete(apiTokens).where(eq(apiTokens.userId, userId)).run(),
    deleteUser(userId) {
      db.delete(apiTokens).where(eq(apiTokens.userId, userId)).run();
      db.delete(userGroupMembers).where(eq(userGroupMembers.userId, userId)).run();
      db.delete(shareUserPermissions).where(eq(shareUserPermissions.userId, userId)).run();
      db.delete(users).where(eq(users.id, userId)).run();
    },
    audit: (entry) => void ctx.audit.record(db, actor, entry),
  };
}

/** The users store of `@appliance/accounts`: reads on the service's handle, writes in one job. */
export function createUsersStore(ctx: AppContext, actor: Actor | null): UsersStore {
  return {
    ...usersView(ctx.db),
    write: (fn) => ctx.writes.run((db) => fn(usersTx(ctx, db, actor))),
  };
}
