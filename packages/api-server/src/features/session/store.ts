import type { CredentialRow, CredentialStore, SessionRow, SessionStore, UserRow } from '@appliance/accounts';
import type { Statement } from 'better-sqlite3';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { apiTokens, users, webSessions } from '../../db/schema.ts';

/**
 * The credential port of `@appliance/accounts` on the service's SQLite connection: prepared
 * statements for the bearer lookup (every request), the temporary triggers that clear the
 * credential cache inside a write, and the batched `last_used_at` write.
 */
export function createCredentialStore(ctx: AppContext): CredentialStore {
  let lookup: Statement | null = null;
  return {
    findCredential(digest) {
      // One prepared statement, the owner by a primary-key subquery (a join made SQLite build a
      // Bloom filter over all users on every run).
      lookup ??= ctx.sqlite.prepare(
        `select t.id as tokenId, t.token_hash as tokenHash, t.role as tokenRole, t.expires_at as expiresAt,
                t.user_id as userId,
                (select username from users where id = t.user_id) as username,
                (select role from users where id = t.user_id) as userRole
           from api_tokens t where t.token_hash = ?`,
      );
      return lookup.get(digest) as CredentialRow | undefined;
    },
    admin: () =>
      ctx.db
        .select({ id: users.id, username: users.username })
        .from(users)
        .where(eq(users.role, 'admin'))
        .get(),
    findByUsername: (username): UserRow | undefined =>
      ctx.db.select().from(users).where(sql`lower(${users.username}) = lower(${username})`).get(),
    recordUses: (uses) =>
      ctx.writes.run((db) => {
        for (const { tokenId, at } of uses)
          db.update(apiTokens)
            .set({ lastUsedAt: at })
            .where(
              and(eq(apiTokens.id, tokenId), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, at))),
            )
            .run();
      }),
    watch(onChange) {
      // Temporary triggers on this connection (not in the schema) call back on every UPDATE or
      // DELETE of `api_tokens` or `users`; `PRAGMA data_version` changes when another connection
      // commits.
      ctx.sqlite.function('appliance_credentials_changed', { deterministic: false, varargs: false }, () => {
        onChange();
        return null;
      });
      for (const [name, event] of [
        ['api_tokens_update', 'UPDATE ON main.api_tokens'],
        ['api_tokens_delete', 'DELETE ON main.api_tokens'],
        ['users_update', 'UPDATE ON main.users'],
        ['users_delete', 'DELETE ON main.users'],
      ] as const) {
        ctx.sqlite.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS credential_cache_${name} AFTER ${event} BEGIN SELECT appliance_credentials_changed(); END`,
        );
      }
      const dataVersion = ctx.sqlite.prepare('PRAGMA data_version').pluck();
      return () => dataVersion.get();
    },
  };
}

/** The browser-session port of `@appliance/accounts` (`web_sessions`). */
export function createSessionStore(ctx: AppContext): SessionStore {
  let lookup: Statement | null = null;
  return {
    open: (session, ended) =>
      ctx.writes.run((db) => {
        ctx.sqlite
          .prepare('delete from web_sessions where expires_at <= ? or last_used_at <= ?')
          .run(ended.expiresBy, ended.idleSince);
        db.insert(webSessions).values(session).run();
      }),
    find(secretHash) {
      lookup ??= ctx.sqlite.prepare(
        `select s.id as id, s.secret_hash as secretHash, s.last_used_at as lastUsedAt,
                s.expires_at as expiresAt, s.user_id as userId,
                (select username from users where id = s.user_id) as username,
                (select role from users where id = s.user_id) as role
           from web_sessions s where s.secret_hash = ?`,
      );
      return lookup.get(secretHash) as SessionRow | undefined;
    },
    touch: (id, at) =>
      ctx.writes.run((db) =>
        db.update(webSessions).set({ lastUsedAt: at }).where(eq(webSessions.id, id)).run(),
      ),
    end: (secretHash) =>
      ctx.writes.run(
        (db) => db.delete(webSessions).where(eq(webSessions.secretHash, secretHash)).run().changes > 0,
      ),
  };
}
