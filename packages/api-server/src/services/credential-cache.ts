import type Database from 'better-sqlite3';

/** What a bearer token resolves to, before the expiry check (which runs on every request). */
export interface CachedCredential {
  tokenId: string;
  tokenRole: 'admin' | 'viewer';
  expiresAt: string | null;
  userId: string;
  username: string;
  userRole: 'admin' | 'viewer' | 'share-only';
}

/** Tables whose rows decide what a credential resolves to. */
const WATCHED = ['api_tokens', 'users'] as const;
const MAX_ENTRIES = 1024;

export interface CredentialCacheOptions {
  /** Milliseconds an entry may be served without reading the rows again (default 1,000). */
  ttlMs?: number;
  /** Monotonic milliseconds (default `performance.now`); tests pass a fake. */
  now?: () => number;
}

/**
 * Resolved bearer tokens, keyed by the token's SHA-256, so that the hot path of every request skips
 * the SQLite lookup (a statement outside a transaction costs 5–10 µs under load, more than the rest
 * of the authentication). Correct without any call site remembering to invalidate it:
 *
 * - every write of this connection to `api_tokens` or `users` (create, revoke, role change,
 *   deletion, an import replacing the accounts) fires a temporary trigger that empties the cache
 *   inside the writing statement, so the first request after it reads the rows again;
 * - a write by another process (`sqlite3` by hand; the service's own tools all go through the API)
 *   is seen within `ttlMs`, after which an entry is read again.
 *
 * Only successful lookups are cached, so a stream of unknown tokens cannot grow it; at most 1,024.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { credential: CachedCredential; readAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(sqlite: Database.Database, options: CredentialCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 1000;
    this.now = options.now ?? (() => performance.now());
    sqlite.function('appliance_credentials_changed', { deterministic: false }, () => {
      this.entries.clear();
      return null;
    });
    for (const table of WATCHED) {
      for (const op of ['insert', 'update', 'delete']) {
        sqlite.exec(
          `create temp trigger if not exists ${table}_${op}_credentials after ${op} on main.${table} begin select appliance_credentials_changed(); end`,
        );
      }
    }
  }

  get(digest: string): CachedCredential | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (this.now() - entry.readAt >= this.ttlMs) {
      this.entries.delete(digest);
      return undefined;
    }
    return entry.credential;
  }

  set(digest: string, credential: CachedCredential): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(digest, { credential, readAt: this.now() });
  }

  get size(): number {
    return this.entries.size;
  }
}
