import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema.ts';

/** The drizzle handle; `$client` is the better-sqlite3 connection under it (for hot-path statements). */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenedDatabase {
  sqlite: Database.Database;
  db: Db;
  close(): void;
}

/** The migrations folder shipped with this package (`drizzle/`), found from src/ or dist/. */
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '..', '..', 'drizzle');

/**
 * Opens the database file (created 0600 in a 0700 state directory), sets WAL, foreign keys, a busy
 * timeout and full durability, and applies pending migrations.
 */
export function openDatabase(
  file: string,
  options: { migrate?: boolean; asyncDurability?: boolean } = {},
): OpenedDatabase {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
  }
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: every commit syncs the WAL. NORMAL is used only together with WalSyncer, which syncs
  // the WAL before any write is acknowledged (same durability, without blocking the event loop).
  sqlite.pragma(
    options.asyncDurability && file !== ':memory:' ? 'synchronous = NORMAL' : 'synchronous = FULL',
  );
  sqlite.pragma('foreign_keys = ON');
  // SQLite's own default page cache (2 MiB) instead of better-sqlite3's 16 MiB: the working set is a
  // few pages, and under sustained writes (the audit log) a larger cache only keeps resident memory
  // rising for minutes (issue 9's load run).
  sqlite.pragma('cache_size = -2000');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema });
  if (options.migrate !== false && !atLatestMigration(sqlite))
    migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return { sqlite, db, close: () => sqlite.close() };
}

/**
 * Whether the newest shipped migration is already applied: drizzle's migrator would then apply
 * nothing, after reading and hashing every migration file (the usual start; skipping it saves that).
 */
function atLatestMigration(sqlite: Database.Database): boolean {
  const newest = migrationJournal().at(-1)?.when;
  if (newest === undefined) return false;
  const table = sqlite
    .prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'")
    .get();
  if (!table) return false;
  const applied = sqlite.prepare('select max(created_at) as at from __drizzle_migrations').get() as {
    at: number | string | null;
  };
  return applied.at !== null && Number(applied.at) === newest;
}

interface JournalEntry {
  idx: number;
  when: number;
  tag: string;
}

/** Migration tags in order, from the shipped journal. */
export function migrationJournal(dir = MIGRATIONS_DIR): JournalEntry[] {
  const journal = JSON.parse(fs.readFileSync(path.join(dir, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return journal.entries;
}

/**
 * The schema version (00 §4): the tag of the newest applied migration (e.g. `0000_initial`).
 * Tags sort in application order. `null` for a database with no applied migration.
 */
export function schemaVersion(sqlite: Database.Database, dir = MIGRATIONS_DIR): string | null {
  const exists = sqlite
    .prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'")
    .get();
  if (!exists) return null;
  const row = sqlite.prepare('select max(created_at) as at from __drizzle_migrations').get() as {
    at: number | null;
  };
  if (row.at === null) return null;
  const entry = migrationJournal(dir).find((e) => e.when === Number(row.at));
  return entry ? entry.tag : `unknown-${row.at}`;
}
