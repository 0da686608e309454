import type { AuditRows } from '@appliance/common';
import { AuditLog as AuditLogOver } from '@appliance/common';
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { and, desc, lt, max } from 'drizzle-orm';
import type { Db } from '../db/open.ts';
import { auditLog } from '../db/schema.ts';

export type { Actor, AuditEntry } from '@appliance/common';

/** The `audit_log` table behind @appliance/common's audit log. */
function auditRows(sqlite: Database.Database): AuditRows<Db> {
  let insert: Statement | null = null;
  return {
    // The write job's handle shares this connection: the row joins that job's savepoint.
    insert(_db, row) {
      insert ??= sqlite.prepare(
        'insert into audit_log (at, actor, token_id, operation, target, outcome, details) values (?, ?, ?, ?, ?, ?, ?)',
      );
      const { at, actor, tokenId, operation, target, outcome, details } = row;
      return Number(insert.run(at, actor, tokenId, operation, target, outcome, details).lastInsertRowid);
    },
    page(db, limit, before) {
      const q = db.select().from(auditLog);
      return (before === null ? q : q.where(lt(auditLog.id, before)))
        .orderBy(desc(auditLog.id))
        .limit(limit)
        .all();
    },
    deleteOlder: (db, at, belowId) =>
      db
        .delete(auditLog)
        .where(and(lt(auditLog.at, at), lt(auditLog.id, belowId)))
        .run().changes,
    newestId: (db) =>
      db
        .select({ id: max(auditLog.id) })
        .from(auditLog)
        .get()?.id ?? null,
  };
}

/** Writes `audit_log` rows inside the caller's write job (same transaction as the change). */
export class AuditLog extends AuditLogOver<Db> {
  constructor(now: () => Date, sqlite: Database.Database) {
    super(now, auditRows(sqlite));
  }
}
