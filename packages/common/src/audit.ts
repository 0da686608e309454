/**
 * The audit log's record shaping, page and retention policy (08 §11) over the host's rows. The
 * server keeps the `audit_log` table and implements `AuditRows`; every change writes its row inside
 * the caller's write job (same transaction as the change).
 */

import type { Clock } from './clock.ts';

/** Who asked: the Unix socket (`local`), an account, or nobody (`system`, a job or a watcher). */
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

/** One `audit_log` row as stored (details as JSON text). */
export interface AuditRow {
  at: string;
  actor: string;
  tokenId: string | null;
  operation: string;
  target: string;
  outcome: 'ok' | 'partial' | 'failed';
  details: string;
}

export interface StoredAuditRow extends AuditRow {
  id: number;
}

/** The `audit_log` table as the host stores it. `db` is the host's handle (a write job's inside one). */
export interface AuditRows<Db> {
  /** Inserts the row; its new id. */
  insert(db: Db, row: AuditRow): number;
  /** Rows with an id below `before` (all when null), newest first, at most `limit`. */
  page(db: Db, limit: number, before: number | null): StoredAuditRow[];
  /** Deletes the rows written before `at` whose id is below `belowId`; how many. */
  deleteOlder(db: Db, at: string, belowId: number): number;
  /** The largest id of the table, or null when empty. */
  newestId(db: Db): number | null;
}

/** How long audit rows are kept. */
export const AUDIT_RETENTION_DAYS = 365;

const DAY_MS = 24 * 3600 * 1000;

/** The cutoff of the daily prune: rows older than the retention period go. */
export const auditPruneCutoff = (now: Date): Date => new Date(now.getTime() - AUDIT_RETENTION_DAYS * DAY_MS);

/** Who an actor is in a record (an audit row, a job): `local`, the username, or `system` without one. */
export const actorName = (actor: Actor | null): string =>
  actor ? (actor.kind === 'local' ? 'local' : actor.username) : 'system';

/** The row an entry of `actor` becomes at `at`. */
export function auditRow(actor: Actor | null, entry: AuditEntry, at: Date): AuditRow {
  return {
    at: at.toISOString(),
    actor: actorName(actor),
    tokenId: actor?.tokenId ?? null,
    operation: entry.operation,
    target: entry.target,
    outcome: entry.outcome ?? 'ok',
    details: JSON.stringify(entry.details ?? {}),
  };
}

/** Writes, lists and prunes audit rows over the host's `AuditRows`. */
export class AuditLog<Db> {
  private readonly now: () => Date;
  private readonly rows: AuditRows<Db>;
  constructor(now: () => Date, rows: AuditRows<Db>) {
    this.now = now;
    this.rows = rows;
  }

  /** Id of the row the last `record` inserted (a write job reads its own row's id here). */
  lastId = 0;

  /**
   * `db` is the write job's handle: the row joins that job's savepoint on the same connection.
   * Returns the new row's id.
   */
  record(db: Db, actor: Actor | null, entry: AuditEntry): number {
    this.lastId = this.rows.insert(db, auditRow(actor, entry, this.now()));
    return this.lastId;
  }

  /** A page newest first, details parsed. */
  list(db: Db, limit: number, before: number | null) {
    return this.rows
      .page(db, limit, before)
      .map((r) => ({ ...r, details: JSON.parse(r.details) as unknown }));
  }

  /** `GET /audit`'s answer: a page and the id the next page starts below (null on the last page). */
  page(db: Db, limit: number, before: number | null) {
    const entries = this.list(db, limit, before);
    const last = entries.at(-1);
    return { entries, nextBefore: entries.length === limit && last ? last.id : null };
  }

  /**
   * Deletes the rows older than `olderThan`, except the newest row of the table: ids are plain
   * rowids (the next row takes the largest id + 1), so keeping the newest row keeps ids growing
   * even after a year without any change (08 §11: `id` is an increasing integer).
   */
  prune(db: Db, olderThan: Date): number {
    const newest = this.rows.newestId(db);
    return newest === null ? 0 : this.rows.deleteOlder(db, olderThan.toISOString(), newest);
  }
}

/**
 * The retention schedule: prunes at once and every day after, rows older than the retention
 * period; a failed prune is left for the next day. Returns the function that stops it.
 */
export function scheduleAuditPrune(prune: (olderThan: Date) => Promise<unknown>, clock: Clock): () => void {
  const run = () => prune(auditPruneCutoff(clock.now())).catch(() => undefined);
  void run();
  const timer = setInterval(run, DAY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
