import type { SetupStore } from '@appliance/accounts';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { apiTokens, users } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { readSettings } from '../settings/index.ts';
import { usersTx, usersView } from '../users/store.ts';

/** The setup store of `@appliance/accounts`: the users store's reads and writes, and the admin's. */
export function createSetupStore(ctx: AppContext, actor: Actor | null): SetupStore {
  return {
    admin: () => ctx.db.select().from(users).where(eq(users.role, 'admin')).get(),
    nameTaken: usersView(ctx.db).nameTaken,
    write: (fn) =>
      ctx.writes.run((db) =>
        fn({
          ...usersTx(ctx, db, actor),
          admin: () => db.select().from(users).where(eq(users.role, 'admin')).get(),
          revokeTokens: (userId) => db.delete(apiTokens).where(eq(apiTokens.userId, userId)).run().changes,
          hostname: () => readSettings(db).hostname,
          raiseWithin: (event) => ctx.hooks.raiseWithin?.(db, event) ?? null,
        }),
      ),
  };
}
