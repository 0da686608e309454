import type { Clock } from '@appliance/common';
import { CredentialCache } from './credential-cache.ts';
import { rateLimited, sessionEnded, shareOnlyLogin, unauthorized } from './core/refusals.ts';
import { type Actor, lowerRole } from './core/roles.ts';
import { sessionSecret } from './core/session-http.ts';
import { TOKEN_PATTERN, sameDigest, tokenHash } from './core/tokens.ts';
import { type Lockout, userLockKey } from './lockout.ts';
import type { Passwords } from './passwords.ts';
import type { CredentialStore, Random, RaiseEvent, SessionStore } from './ports.ts';
import { Sessions } from './sessions.ts';
import { TokenUsage } from './token-usage.ts';

export interface AuthenticatorDeps {
  credentials: CredentialStore;
  sessions: SessionStore;
  clock: Clock;
  random: Random;
  passwords: Passwords;
  lockout: Lockout;
  /** Raises `login_failure_burst` (read at each use: notifications start after the authenticator). */
  raise: RaiseEvent;
}

/**
 * Resolves credentials to an Actor. A bearer token's answer comes from the database, or from a
 * small cache of earlier answers that every change to tokens or users clears within the write
 * itself (credential-cache.ts): revocation, owner deletion and a lower role act on the very next
 * request, as they do without it (08 §3.2; docs/decisions/performance.md). A token's use is noted
 * in memory (`usage`, at most once a minute per token), never written by the request.
 */
export class Authenticator {
  private adminKnown = false;

  private readonly deps: AuthenticatorDeps;
  readonly passwords: Passwords;
  readonly lockout: Lockout;
  /** When each token was last used (token-usage.ts); the server stores it when it closes. */
  readonly usage: TokenUsage;
  /** Browser sessions (sessions.ts). */
  readonly sessions: Sessions;

  constructor(deps: AuthenticatorDeps) {
    this.deps = deps;
    this.passwords = deps.passwords;
    this.lockout = deps.lockout;
    this.sessions = new Sessions({ store: deps.sessions, clock: deps.clock, random: deps.random });
    this.usage = new TokenUsage(() => deps.credentials.recordUses);
  }

  /** Whether an admin account exists (cached once true: the admin cannot be deleted). */
  adminExists(): boolean {
    if (this.adminKnown) return true;
    this.adminKnown = this.deps.credentials.admin() !== undefined;
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
    const admin = this.deps.credentials.admin();
    return {
      kind: 'local',
      userId: admin?.id ?? null,
      username: admin?.username ?? 'local',
      role: 'admin',
      tokenId: null,
    };
  }

  private credentials: CredentialCache | null = null;

  /** How many token answers the cache holds (tests check that it is in use). */
  get cachedCredentials(): number {
    return this.credentials?.size ?? 0;
  }

  bearer(raw: string): Actor {
    if (!TOKEN_PATTERN.test(raw)) throw unauthorized();
    const digest = tokenHash(raw);
    this.credentials ??= new CredentialCache(this.deps.credentials, this.deps.clock);
    const cached = this.credentials.get(digest);
    if (cached !== undefined) {
      const now = this.deps.clock.now();
      if (cached.expiresAt !== null && cached.expiresAt <= now.toISOString()) throw unauthorized();
      if (cached.actor.tokenId !== null) this.usage.seen(cached.actor.tokenId, now);
      return { ...cached.actor };
    }
    const found = this.deps.credentials.findCredential(digest);
    if (!found || found.userRole === null || !sameDigest(found.tokenHash, digest)) throw unauthorized();
    const now = this.deps.clock.now();
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
    const keys = [userLockKey(username), `addr:${source}`];
    const wait = this.lockout.retryAfter(keys);
    if (wait > 0) throw rateLimited(wait);
    const user = this.deps.credentials.findByUsername(username);
    const valid = await this.passwords.verify(password, user?.passwordHash ?? null);
    if (!valid || !user) {
      if (this.lockout.fail(keys)) {
        void this.deps.raise({
          eventType: 'login_failure_burst',
          title: 'Repeated failed logins',
          message: `Five failed logins in a row for ${username.slice(0, 64)} from ${source}.`,
        });
      }
      throw unauthorized();
    }
    this.lockout.succeed(keys);
    if (user.role === 'share-only') throw shareOnlyLogin();
    return { kind: 'user', userId: user.id, username: user.username, role: user.role, tokenId: null };
  }

  /**
   * The browser session's part of authentication (docs/decisions/web-ui.md): a request without an
   * `Authorization` header may carry the session cookie; a cookie that names no live session is
   * `session_ended` on a route that needs a credential (a public route ignores it).
   */
  session(cookieHeader: string | undefined, needsCredential: boolean): Actor | null {
    const secret = sessionSecret(cookieHeader);
    if (secret === null) return null;
    const actor = this.sessions.actor(secret);
    if (actor === null && needsCredential) throw sessionEnded();
    return actor;
  }
}
