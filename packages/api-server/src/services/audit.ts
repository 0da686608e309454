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
  constructor(now: () => Date) {
    this.now = now;
  }

  record(db: Db, actor: Actor | null, entry: AuditEntry): void {
    db.insert(auditLog)
      .values({
        at: this.now().toISOString(),
        actor: actor ? (actor.kind === 'local' ? 'local' : actor.username) : 'system',
        tokenId: actor?.tokenId ?? null,
        operation: entry.operation,
        target: entry.target,
        outcome: entry.outcome ?? 'ok',
        details: JSON.stringify(entry.details ?? {}),
      })
      .run();
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
