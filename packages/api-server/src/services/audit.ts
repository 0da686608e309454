import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { desc, lt } from 'drizzle-orm';
import type { Db } from '../db/open.ts';
import { auditLog } from '../db/schema.ts';

export interface Actor {
  /** `local` for the Unix socket, else the account. */
  kind: 'local' | 'user';
  userId: string | null;
  username: string;
  role: 'admin' | 'viewer' | 'share-only';
  tokenId: string | null;
}

export interface AuditEntry {
  operation: string;
  target: string;
  outcome?: 'ok' | 'partial' | 'failed';
  /** JSON, never a secret. */
  details?: Record<string, unknown>;
}

/** Writes `audit_log` rows inside the caller's write job (same transaction as the change). */
export class AuditLog {
  private readonly now: () => Date;
  private readonly sqlite: Database.Database;
  constructor(now: () => Date, sqlite: Database.Database) {
    this.now = now;
    this.sqlite = sqlite;
  }

  private insert: Statement | null = null;

  /** Id of the row the last `record` inserted (a write job reads its own row's id here). */
  lastId = 0;

  /**
   * `db` is the write job's handle: the row joins that job's savepoint on the same connection.
   * Returns the new row's id.
   */
  record(_db: Db, actor: Actor | null, entry: AuditEntry): number {
    this.insert ??= this.sqlite.prepare(
      'insert into audit_log (at, actor, token_id, operation, target, outcome, details) values (?, ?, ?, ?, ?, ?, ?)',
    );
    const { lastInsertRowid } = this.insert.run(
      this.now().toISOString(),
      actor ? (actor.kind === 'local' ? 'local' : actor.username) : 'system',
      actor?.tokenId ?? null,
      entry.operation,
      entry.target,
      entry.outcome ?? 'ok',
      JSON.stringify(entry.details ?? {}),
    );
    this.lastId = Number(lastInsertRowid);
    return this.lastId;
  }

  list(db: Db, limit: number, before: number | null) {
    const q = db.select().from(auditLog);
    const rows = (before === null ? q : q.where(lt(auditLog.id, before)))
      .orderBy(desc(auditLog.id))
      .limit(limit)
      .all();
    return rows.map((r) => ({ ...r, details: JSON.parse(r.details) as unknown }));
  }

  prune(db: Db, olderThan: Date): number {
    return db.delete(auditLog).where(lt(auditLog.at, olderThan.toISOString())).run().changes;
  }
}
