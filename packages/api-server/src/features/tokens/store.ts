import type { TokensStore, TokensTx } from '@appliance/accounts';
import { and, count, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { apiTokens, users } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

function tokensTx(ctx: AppContext, db: Db, actor: Actor | null): TokensTx {
  return {
    countTokens: (userId) =>
      db.select({ n: count() }).from(apiTokens).where(eq(apiTokens.userId, userId)).get()!.n,
    insert: (row) => db.insert(apiTokens).values(row).returning().get(),
    revoke: (id, ownerId) =>
      db
        .delete(apiTokens)
        .where(
          ownerId === null ? eq(apiTokens.id, id) : and(eq(apiTokens.id, id), eq(apiTokens.userId, ownerId)),
        )
        .returning({ id: apiTokens.id })
        .get(),
    audit: (entry) => void ctx.audit.record(db, actor, entry),
  };
}

/** The API-token store of `@appliance/accounts` (`api_tokens`, with the owners' names). */
export function createTokensStore(ctx: AppContext, actor: Actor | null): TokensStore {
  return {
    findUser: (id) => ctx.db.select().from(users).where(eq(users.id, id)).get(),
    list(ownerId) {
      const base = ctx.db
        .select({ token: apiTokens, username: users.username })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId));
      return (ownerId === null ? base : base.where(eq(apiTokens.userId, ownerId)))
        .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id))
        .all();
    },
    write: (fn) => ctx.writes.run((db) => fn(tokensTx(ctx, db, actor))),
  };
}
