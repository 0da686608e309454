import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { webSessions } from '../db/schema.ts';
import type { Actor } from './audit.ts';

/** The cookie that carries a browser session (docs/decisions/web-ui.md). */
export const SESSION_COOKIE = 'appliance_session';
/** The header every write of the web UI carries; a cookie write without it is refused. */
export const UI_HEADER = 'x-appliance-ui';
/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 60 * 60 * 1000;
/** …and at the latest this long after sign-in. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often per session (a write per request would cost). */
const TOUCH_EVERY_MS = 60 * 1000;

const SECRET_PATTERN = /^[0-9a-f]{64}$/;

interface SessionRow {
  id: string;
  secretHash: string;
  lastUsedAt: string;
  expiresAt: string;
  userId: string;
  username: string | null;
  role: Actor['role'] | null;
}

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * Server-side browser sessions. The cookie's secret is 32 random bytes; only its SHA-256 is
 * stored. A session acts as its owner with the owner's current role (a lowered role acts at once);
 * a share-only account never gets one.
 */
export class Sessions {
  private readonly ctx: AppContext;
  private lookup: Statement | null = null;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  /** Opens a session for a signed-in user; returns the cookie secret and the absolute expiry. */
  async open(userId: string): Promise<{ secret: string; expiresAt: string }> {
    const secret = this.ctx.random.bytes(32).toString('hex');
    const now = this.ctx.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString();
    await this.ctx.writes.run((db) => {
      // Sessions that ended are removed as new ones open (no timer needed).
      this.ctx.sqlite
        .prepare('delete from web_sessions where expires_at <= ? or last_used_at <= ?')
        .run(now.toISOString(), new Date(now.getTime() - SESSION_IDLE_MS).toISOString());
      db.insert(webSessions)
        .values({
          id: this.ctx.random.uuid(),
          secretHash: digest(secret),
          userId,
          createdAt: now.toISOString(),
          lastUsedAt: now.toISOString(),
          expiresAt,
        })
        .run();
    });
    return { secret, expiresAt };
  }

  /** The actor of a live session, or null (unknown, expired, idle too long, owner gone). */
  actor(secret: string): Actor | null {
    if (!SECRET_PATTERN.test(secret)) return null;
    this.lookup ??= this.ctx.sqlite.prepare(
      `select s.id as id, s.secret_hash as secretHash, s.last_used_at as lastUsedAt,
              s.expires_at as expiresAt, s.user_id as userId,
              (select username from users where id = s.user_id) as username,
              (select role from users where id = s.user_id) as role
         from web_sessions s where s.secret_hash = ?`,
    );
    const row = this.lookup.get(digest(secret)) as SessionRow | undefined;
    if (!row || row.username === null || row.role === null || row.role === 'share-only') return null;
    const now = this.ctx.clock.now();
    if (row.expiresAt <= now.toISOString()) return null;
    const idleSince = now.getTime() - Date.parse(row.lastUsedAt);
    if (idleSince >= SESSION_IDLE_MS) return null;
    if (idleSince >= TOUCH_EVERY_MS) {
      const at = now.toISOString();
      void this.ctx.writes
        .run((db) => db.update(webSessions).set({ lastUsedAt: at }).where(eq(webSessions.id, row.id)).run())
        .catch(() => undefined);
    }
    return { kind: 'user', userId: row.userId, username: row.username, role: row.role, tokenId: null };
  }

  /** Ends a session server-side; true when one was found. */
  async end(secret: string): Promise<boolean> {
    if (!SECRET_PATTERN.test(secret)) return false;
    const hash = digest(secret);
    return this.ctx.writes.run(
      (db) => db.delete(webSessions).where(eq(webSessions.secretHash, hash)).run().changes > 0,
    );
  }
}

/** The session secret of a request's `Cookie` header, if any. */
export function sessionSecret(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}
