/**
 * The import's database (08 §14 steps 2 and 3): the prepared copy of the archive's `state.db`
 * (upgraded when older), edited as `databasePlan` says, then copied into the live database in one
 * transaction on the server's own connection (ATTACH; DELETE and INSERT … SELECT per restored
 * table). The live connection is never closed or reopened: every prepared statement, the write
 * queue and the WAL stay as they are, and SQLite's own commit makes the swap atomic.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { type DatabasePlan, sealedWrites } from '../core/import-plan.ts';
import { SEALED_COLUMNS } from '../core/registry.ts';
import type { SecretsPayload } from '../core/secrets.ts';

export interface SealWith {
  seal(plain: Buffer): Buffer;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function tableExists(db: Database.Database, schema: string, table: string): boolean {
  return (
    db.prepare(`SELECT 1 FROM ${schema}.sqlite_schema WHERE type = 'table' AND name = ?`).get(table) !==
    undefined
  );
}

/** Table names of the live database (SQLite's own excluded). */
export function liveTables(db: Database.Database): string[] {
  return (
    db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
}

/**
 * Copies `source` (the archive's state.db, or its upgraded copy) to `target` and applies the
 * plan: sealed values re-sealed or cleared, `array_disks.device` rewritten from the mapping, the
 * live `array_settings` columns kept. `live` is read only.
 */
export function prepareDatabase(input: {
  source: string;
  target: string;
  plan: DatabasePlan;
  live: Database.Database;
  sealer: SealWith;
  secrets: SecretsPayload | null;
  passphrase: string;
}): void {
  fs.copyFileSync(input.source, input.target);
  fs.chmodSync(input.target, 0o600);
  const db = new Database(input.target);
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('trusted_schema = OFF');
    const edit = db.transaction(() => {
      const rows: Record<string, (string | number | null)[][]> = {};
      for (const c of SEALED_COLUMNS) {
        if (!tableExists(db, 'main', c.table)) continue;
        const keys = c.key.map(quote).join(', ');
        rows[`${c.table}.${c.column}`] = (
          db
            .prepare(
              `SELECT ${keys} FROM ${quote(c.table)} WHERE ${quote(c.column)} IS NOT NULL ORDER BY ${keys}`,
            )
            .raw()
            .all() as (string | number | null)[][]
        ).map((r) => [...r]);
      }
      for (const w of sealedWrites({
        mode: input.plan.sealing,
        rows,
        secrets: input.secrets,
        passphrase: input.passphrase,
      })) {
        const c = SEALED_COLUMNS.find((s) => s.table === w.table && s.column === w.column)!;
        const where = c.key.map((k) => `${quote(k)} = ?`).join(' AND ');
        db.prepare(`UPDATE ${quote(w.table)} SET ${quote(w.column)} = ? WHERE ${where}`).run(
          w.plain === null ? null : input.sealer.seal(w.plain),
          ...w.key,
        );
      }
      for (const m of input.plan.deviceRewrites) {
        db.prepare('UPDATE array_disks SET device = ? WHERE role = ? AND role_index = ?').run(
          m.device,
          m.role,
          m.roleIndex,
        );
      }
      for (const { table, columns } of input.plan.liveColumns) {
        if (!tableExists(db, 'main', table) || !tableExists(input.live, 'main', table)) continue;
        const liveRow = input.live
          .prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`)
          .get() as Record<string, unknown> | undefined;
        if (!liveRow) continue;
        db.prepare(`UPDATE ${quote(table)} SET ${columns.map((c) => `${quote(c)} = ?`).join(', ')}`).run(
          ...columns.map((c) => liveRow[c] ?? null),
        );
      }
    });
    edit.immediate();
  } finally {
    db.close();
  }
}

/**
 * Replaces the live rows of every `archive` table with the prepared database's, in one
 * transaction on the live connection, together with `inTransaction` (the audit row) and
 * `PRAGMA user_version = nonce` (the commit marker the startup sweep reads). Synchronous: no
 * write-queue batch can interleave. Foreign keys are checked on the result before the commit.
 */
export function commitDatabase(input: {
  live: Database.Database;
  prepared: string;
  plan: DatabasePlan;
  nonce: number;
  inTransaction?: (db: Database.Database) => void;
}): void {
  const { live, plan } = input;
  const fkBefore = live.pragma('foreign_keys', { simple: true }) as number;
  const syncBefore = live.pragma('synchronous', { simple: true }) as number;
  live.prepare('ATTACH DATABASE ? AS import_src').run(input.prepared);
  let open = false;
  try {
    // Restored tables are emptied and refilled: cascades must not touch the rows kept live.
    live.pragma('foreign_keys = OFF');
    // This commit is acknowledged only once it is on disk (the server otherwise relies on its WAL
    // syncer, which only the write queue drives).
    live.pragma('synchronous = FULL');
    live.exec('BEGIN IMMEDIATE');
    open = true;
    for (const [table, source] of Object.entries(plan.tables)) {
      if (source !== 'archive') continue;
      const columns = (
        live.prepare(`SELECT name FROM pragma_table_info(?, 'main')`).all(table) as { name: string }[]
      )
        .map((r) => quote(r.name))
        .join(', ');
      live.exec(`DELETE FROM main.${quote(table)}`);
      if (tableExists(live, 'import_src', table)) {
        live.exec(
          `INSERT INTO main.${quote(table)} (${columns}) SELECT ${columns} FROM import_src.${quote(table)}`,
        );
      }
    }
    if (plan.dropOrphanDeliveries && tableExists(live, 'main', 'notify_deliveries')) {
      live.exec(
        'DELETE FROM main.notify_deliveries WHERE channel_id NOT IN (SELECT id FROM main.notify_channels)',
      );
    }
    const violations = live.pragma('main.foreign_key_check') as unknown[];
    if (violations.length > 0) {
      throw new Error(`the restored rows fail the foreign-key check (${JSON.stringify(violations[0])})`);
    }
    input.inTransaction?.(live);
    live.pragma(`user_version = ${Math.trunc(input.nonce)}`);
    live.exec('COMMIT');
    open = false;
  } catch (err) {
    if (open) {
      try {
        live.exec('ROLLBACK');
      } catch {
        // already rolled back by SQLite
      }
    }
    throw err;
  } finally {
    live.pragma(`synchronous = ${syncBefore}`);
    live.pragma(`foreign_keys = ${fkBefore}`);
    live.exec('DETACH DATABASE import_src');
  }
}

/** The commit marker of the last import (read by the startup sweep). */
export function readCommitMarker(file: string): number | null {
  if (!fs.existsSync(file)) return null;
  const db = new Database(file, { fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

/** Runs `fn` on a read-only connection to the database file `file`, closed after it. */
export async function withReadOnlyDb<T>(
  file: string,
  fn: (db: Database.Database) => T | Promise<T>,
): Promise<T> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
