/**
 * Schema versions and the staged upgrade (01 §1.4, §4.9) over drizzle's migration table
 * (`__drizzle_migrations`: `hash` = SHA-256 of the migration SQL, `created_at` = the journal's
 * `when`). The version's identifier is the journal tag of the newest applied migration; a
 * migration this build does not know (a newer archive) is named `unknown-<created_at>`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { invalidArchive } from '../core/errors.ts';
import { MIGRATION_TABLE } from '../core/registry.ts';
import type { SchemaVersion } from '../core/schema-version.ts';

export interface MigrationEntry {
  tag: string;
  when: number;
  hash: string;
}

/** This build's migrations (the folder drizzle-kit generates: `meta/_journal.json` + `<tag>.sql`). */
export interface Migrations {
  folder: string;
  entries: readonly MigrationEntry[];
}

export function loadMigrations(folder: string): Migrations {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const entries = journal.entries.map((e) => ({
    tag: e.tag,
    when: e.when,
    hash: createHash('sha256')
      .update(fs.readFileSync(path.join(folder, `${e.tag}.sql`), 'utf8'))
      .digest('hex'),
  }));
  return { folder, entries };
}

interface AppliedRow {
  hash: string;
  created_at: number | bigint | string | null;
}

function applied(db: Database.Database): AppliedRow[] {
  return db
    .prepare(`SELECT hash, created_at FROM "${MIGRATION_TABLE}"`)
    .safeIntegers(false)
    .all() as AppliedRow[];
}

/** The newest applied migration, or throws (the caller maps it: archive → invalid_archive, live → 500). */
export function readSchemaVersion(db: Database.Database, migrations: Migrations): SchemaVersion {
  const rows = applied(db);
  if (rows.length === 0) throw new Error('the migration table is empty');
  let newest: { order: number; hash: string } | null = null;
  for (const r of rows) {
    const order = Number(r.created_at);
    if (!Number.isFinite(order) || typeof r.hash !== 'string')
      throw new Error('the migration table is unreadable');
    if (newest === null || order > newest.order) newest = { order, hash: r.hash };
  }
  const n = newest as { order: number; hash: string };
  const known = migrations.entries.find((e) => e.when === n.order && e.hash === n.hash);
  return { id: known ? known.tag : `unknown-${n.order}`, order: n.order };
}

/** The archive's schema version; any failure is `invalid_archive` (rule 12). */
export function readArchiveSchemaVersion(db: Database.Database, migrations: Migrations): SchemaVersion {
  try {
    return readSchemaVersion(db, migrations);
  } catch {
    throw invalidArchive(
      'state.db has no readable schema version (its migration table is missing, empty or unreadable)',
      'state.db',
    );
  }
}

export type UpgradeResult = { ok: true } | { ok: false; error: string };

const ENVIRONMENT_CODES =
  /^(SQLITE_FULL|SQLITE_IOERR|SQLITE_CANTOPEN|SQLITE_NOMEM|SQLITE_READONLY|SQLITE_BUSY|SQLITE_LOCKED|ENOSPC|EIO|EACCES|EROFS)/;

/**
 * Upgrades a staged copy of an older archive's database with the real migration runner. A content
 * failure (failed migration, foreign-key or integrity failure, unknown history, result ≠ live
 * version) is returned; an environment failure (disk full, I/O) is thrown (a 500).
 */
export async function upgradeStagedCopy(
  file: string,
  migrations: Migrations,
  live: SchemaVersion,
): Promise<UpgradeResult> {
  // Loaded only when needed: importing drizzle costs a daemon ~130 MiB of peak memory.
  const { drizzle } = await import('drizzle-orm/better-sqlite3');
  const { migrate } = await import('drizzle-orm/better-sqlite3/migrator');
  const db = new Database(file);
  try {
    db.pragma('trusted_schema = OFF');
    const history = applied(db);
    for (const r of history) {
      if (!migrations.entries.some((e) => e.when === Number(r.created_at) && e.hash === r.hash)) {
        return { ok: false, error: 'the archive has a migration history this release does not know' };
      }
    }
    try {
      migrate(drizzle(db), { migrationsFolder: migrations.folder });
    } catch (err) {
      if (isEnvironmentFailure(err)) throw err;
      const cause = (err as { cause?: unknown }).cause;
      const message = (cause instanceof Error ? cause.message : (err as Error).message)
        .replace(/\s+/g, ' ')
        .slice(0, 300);
      return { ok: false, error: `a migration failed (${message})` };
    }
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length > 0) return { ok: false, error: 'the upgraded database fails its foreign-key check' };
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return { ok: false, error: 'the upgraded database fails its integrity check' };
    const after = readSchemaVersion(db, migrations);
    if (after.id !== live.id || after.order !== live.order) {
      return { ok: false, error: `the upgrade ends at ${after.id}, not ${live.id}` };
    }
    return { ok: true };
  } finally {
    db.close();
  }
}

function isEnvironmentFailure(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && ENVIRONMENT_CODES.test(code);
}
