import type { Clock } from '@appliance/common';
import type { Actor } from './core/roles.ts';
import { tokenHash } from './core/tokens.ts';
import type { Random, SessionStore } from './ports.ts';

/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 60 * 60 * 1000;
/** …and at the latest this long after sign-in. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often per session (a write per request would cost). */
const TOUCH_EVERY_MS = 60 * 1000;

const SECRET_PATTERN = /^[0-9a-f]{64}$/;

export interface SessionsDeps {
  store: SessionStore;
  clock: Clock;
  random: Random;
}

/**
 * Server-side browser sessions. The cookie's secret is 32 random bytes; only its SHA-256 is
 * stored. A session acts as its owner with the owner's current role (a lowered role acts at once);
 * a share-only account never gets one.
 */
export class Sessions {
  private readonly deps: SessionsDeps;

  constructor(deps: SessionsDeps) {
    this.deps = deps;
  }

  /** Opens a session for a signed-in user; returns the cookie secret and the absolute expiry. */
  async open(userId: string): Promise<{ secret: string; expiresAt: string }> {
    const { store, clock, random } = this.deps;
    const secret = random.bytes(32).toString('hex');
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString();
    // Sessions that ended are removed as new ones open (no timer needed).
    await store.open(
      {
        id: random.uuid(),
        secretHash: tokenHash(secret),
        userId,
        createdAt: now.toISOString(),
        lastUsedAt: now.toISOString(),
        expiresAt,
      },
      { expiresBy: now.toISOString(), idleSince: new Date(now.getTime() - SESSION_IDLE_MS).toISOString() },
    );
    return { secret, expiresAt };
  }

  /** The actor of a live session, or null (unknown, expired, idle too long, owner gone). */
  actor(secret: string): Actor | null {
    if (!SECRET_PATTERN.test(secret)) return null;
    const row = this.deps.store.find(tokenHash(secret));
    if (!row || row.username === null || row.role === null || row.role === 'share-only') return null;
    const now = this.deps.clock.now();
    if (row.expiresAt <= now.toISOString()) return null;
    const idleSince = now.getTime() - Date.parse(row.lastUsedAt);
    if (idleSince >= SESSION_IDLE_MS) return null;
    if (idleSince >= TOUCH_EVERY_MS) {
      void this.deps.store.touch(row.id, now.toISOString()).catch(() => undefined);
    }
    return { kind: 'user', userId: row.userId, username: row.username, role: row.role, tokenId: null };
  }

  /** Ends a session server-side; true when one was found. */
  async end(secret: string): Promise<boolean> {
    if (!SECRET_PATTERN.test(secret)) return false;
    return this.deps.store.end(tokenHash(secret));
  }
}
