import type { Clock } from '@appliance/common';
import type { Actor } from './core/roles.ts';

/** A bearer token's answer as the database gave it: its caller and when it stops working. */
export interface CachedCredential {
  actor: Actor;
  expiresAt: string | null;
}

/** Entries kept (a home appliance has a handful of live tokens; the oldest goes first). */
export const CREDENTIAL_CACHE_SIZE = 256;
/** How often a cached answer re-checks that no other connection committed to the database. */
export const FOREIGN_WRITE_CHECK_MS = 250;

/**
 * How the store tells the cache that its answers may be stale (the server's SQLite store: temporary
 * triggers and `PRAGMA data_version`).
 */
export interface CredentialChanges {
  /**
   * Calls `onChange` inside every write that changes tokens or users (a token deleted, a user
   * deleted or its role changed, a config import replacing the accounts), before any other request
   * runs. Returns a reader of a value that changes when another connection commits.
   */
  watch(onChange: () => void): () => unknown;
}

/**
 * The answers of successful bearer lookups, by token digest, so that a request does not pay the
 * SQLite lookup (docs/decisions/performance.md, "The token check"). It never answers for a token
 * that was revoked, whose owner was deleted or downgraded, or that expired:
 * - the store calls back into here on every UPDATE or DELETE of tokens or users — a token
 *   deleted, a user deleted (and its tokens by cascade), a role changed, a config import
 *   replacing the accounts — and the whole cache is cleared inside that write, before any other
 *   request runs;
 * - `expiresAt` is compared with the clock on every hit;
 * - a commit by another connection (someone editing the database behind the service's back) is
 *   noticed through the store's version reader, checked at most every FOREIGN_WRITE_CHECK_MS;
 * - failed lookups are never cached.
 */
export class CredentialCache {
  private readonly entries = new Map<string, CachedCredential>();
  private readonly clock: Clock;
  private readonly dataVersion: () => unknown;
  private version: unknown;
  private checkedAt = 0;

  constructor(changes: CredentialChanges, clock: Clock) {
    this.clock = clock;
    this.dataVersion = changes.watch(() => this.clear());
    this.version = this.dataVersion();
  }

  /** The cached answer for a token digest, or undefined (then the caller looks it up). */
  get(digest: string): CachedCredential | undefined {
    if (this.entries.size === 0) return undefined;
    const now = this.clock.now().getTime();
    if (now - this.checkedAt >= FOREIGN_WRITE_CHECK_MS || now < this.checkedAt) {
      this.checkedAt = now;
      const version = this.dataVersion();
      if (version !== this.version) {
        this.version = version;
        this.entries.clear();
        return undefined;
      }
    }
    return this.entries.get(digest);
  }

  set(digest: string, entry: CachedCredential): void {
    if (this.entries.size >= CREDENTIAL_CACHE_SIZE && !this.entries.has(digest)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(digest, entry);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
