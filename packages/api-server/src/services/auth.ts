import { AppError } from '@appliance/common';
import type { Statement } from 'better-sqlite3';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { apiTokens, users } from '../db/schema.ts';
import { unauthorized } from '../http/errors.ts';
import type { Actor } from './audit.ts';
import { CredentialCache } from './credential-cache.ts';
import type { Lockout } from './lockout.ts';
import type { Passwords } from './passwords.ts';
import { Sessions } from './sessions.ts';
import { TOKEN_PATTERN, lowerRole, sameDigest, tokenHash } from './tokens.ts';
import { TokenUsage } from './token-usage.ts';

/** A token row with its owner's username and role (null when the owner is gone). */
interface CredentialRow {
  tokenId: string;
  tokenHash: string;
  tokenRole: 'admin' | 'viewer';
  expiresAt: string | null;
  userId: string;
  username: string;
  userRole: 'admin' | 'viewer' | 'share-only' | null;
}

/**
 * Resolves credentials to an Actor. A bearer token's answer comes from the database, or from a
 * small cache of earlier answers that every change to `api_tokens` or `users` clears within the
 * write itself (credential-cache.ts): revocation, owner deletion and a lower role act on the very
 * next request, as they do without it (08 §3.2; docs/decisions/performance.md). A token's use is
 * noted in memory (`usage`, at most once a minute per token), never written by the request.
 */
export class Authenticator {
  private adminKnown = false;

  private readonly ctx: AppContext;
  readonly passwords: Passwords;
  readonly lockout: Lockout;
  /** When each token was last used (token-usage.ts); the server stores it when it closes. */
  readonly usage: TokenUsage;
  /** Browser sessions (sessions.ts). */
  readonly sessions: Sessions;

  constructor(ctx: AppContext, passwords: Passwords, lockout: Lockout) {
    this.ctx = ctx;
    this.passwords = passwords;
    this.lockout = lockout;
    this.sessions = new Sessions(ctx);
    this.usage = new TokenUsage(
      () => (uses) =>
        ctx.writes.run((db) => {
          for (const { tokenId, at } of uses)
            db.update(apiTokens)
              .set({ lastUsedAt: at })
              .where(
                and(
                  eq(apiTokens.id, tokenId),
                  or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, at)),
                ),
              )
              .run();
        }),
    );
  }

  /** Whether an admin account exists (cached once true: the admin cannot be deleted). */
  adminExists(): boolean {
    if (this.adminKnown) return true;
    const row = this.ctx.db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).get();
    this.adminKnown = row !== undefined;
    return this.adminKnown;
  }

  /** Forget the cached answers (after a config import replaced the accounts). */
  resetAdminCache(): void {
    this.adminKnown = false;
    this.usage.reset();
    this.credentials?.clear();
  }

  /** The Unix-socket caller: the local administrator, acting as the admin account. */
  localActor(): Actor {
    const admin = this.ctx.db.select().from(users).where(eq(users.role, 'admin')).get();
    return {
      kind: 'local',
      userId: admin?.id ?? null,
      username: admin?.username ?? 'local',
      role: 'admin',
      tokenId: null,
    };
  }

  private credentialLookup: Statement | null = null;
  private credentials: CredentialCache | null = null;

  /** How many token answers the cache holds (tests check that it is in use). */
  get cachedCredentials(): number {
    return this.credentials?.size ?? 0;
  }

  bearer(raw: string): Actor {
    if (!TOKEN_PATTERN.test(raw)) throw unauthorized();
    const digest = tokenHash(raw);
    this.credentials ??= new CredentialCache(this.ctx.sqlite, this.ctx.clock);
    const cached = this.credentials.get(digest);
    if (cached !== undefined) {
      const now = this.ctx.clock.now();
      if (cached.expiresAt !== null && cached.expiresAt <= now.toISOString()) throw unauthorized();
      if (cached.actor.tokenId !== null) this.usage.seen(cached.actor.tokenId, now);
      return { ...cached.actor };
    }
    // One prepared statement, the owner by a primary-key subquery (a join made SQLite build a
    // Bloom filter over all users on every run).
    this.credentialLookup ??= this.ctx.sqlite.prepare(
      `select t.id as tokenId, t.token_hash as tokenHash, t.role as tokenRole, t.expires_at as expiresAt,
              t.user_id as userId,
              (select username from users where id = t.user_id) as username,
              (select role from users where id = t.user_id) as userRole
         from api_tokens t where t.token_hash = ?`,
    );
    const found = this.credentialLookup.get(digest) as CredentialRow | undefined;
    if (!found || found.userRole === null || !sameDigest(found.tokenHash, digest)) throw unauthorized();
    const now = this.ctx.clock.now();
    if (found.expiresAt !== null && found.expiresAt <= now.toISOString()) throw unauthorized();
    this.usage.seen(found.tokenId, now);
    const role = lowerRole(found.tokenRole, found.userRole);
    const actor: Actor = {
      kind: 'user',
      userId: found.userId,
      username: found.username,
      role,
      tokenId: found.tokenId,
    };
    this.credentials.set(digest, { actor, expiresAt: found.expiresAt });
    return { ...actor };
  }

  /** Basic credentials (POST /tokens only), with the lock-out. */
  async basic(header: string, source: string): Promise<Actor> {
    let decoded: string;
    try {
      decoded = Buffer.from(header, 'base64').toString('utf8');
    } catch {
      throw unauthorized();
    }
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized();
    return this.login(decoded.slice(0, colon), decoded.slice(colon + 1), source);
  }

  /**
   * A username and password (Basic on POST /tokens, POST /session), with the lock-out per
   * username and per source address and `login_failure_burst` at the threshold (08 §3.3).
   */
  async login(username: string, password: string, source: string): Promise<Actor> {
    const keys = [`user:${username.toLowerCase()}`, `addr:${source}`];
    const wait = this.lockout.retryAfter(keys);
    if (wait > 0) {
      throw new AppError(429, 'rate_limited', `Too many failed logins; try again in ${wait} seconds.`, {
        retryAfterSeconds: wait,
      });
    }
    const user = this.ctx.db
      .select()
      .from(users)
      .where(sql`lower(${users.username}) = lower(${username})`)
      .get();
    const valid = await this.passwords.verify(password, user?.passwordHash ?? null);
    if (!valid || !user) {
      if (this.lockout.fail(keys)) {
        void this.ctx.hooks.raise?.({
          eventType: 'login_failure_burst',
          title: 'Repeated failed logins',
          message: `Five failed logins in a row for ${username.slice(0, 64)} from ${source}.`,
        });
      }
      throw unauthorized();
    }
    this.lockout.succeed(keys);
    if (user.role === 'share-only') {
      throw new AppError(
        403,
        'share_only_no_api_token',
        'This is a file-sharing account; it cannot use the API or create tokens.',
      );
    }
    return { kind: 'user', userId: user.id, username: user.username, role: user.role, tokenId: null };
  }
}
