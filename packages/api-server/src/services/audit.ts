import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { and, desc, lt, sql } from 'drizzle-orm';
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

  /**
   * Deletes the rows older than `olderThan`, except the newest row of the table: ids are plain
   * rowids (the next row takes the largest id + 1), so keeping the newest row keeps ids growing
   * even after a year without any change (08 §11: `id` is an increasing integer).
   */
  prune(db: Db, olderThan: Date): number {
    return db
      .delete(auditLog)
      .where(
        and(
          lt(auditLog.at, olderThan.toISOString()),
          lt(auditLog.id, sql`(select max(${auditLog.id}) from ${auditLog})`),
        ),
      )
      .run().changes;
  }
}
