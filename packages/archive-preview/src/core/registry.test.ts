import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../test-support/sandbox.ts';
import {
  COMPARED,
  COMPARED_TABLES,
  isComparedColumn,
  NOT_COMPARED,
  SEALED_COLUMNS,
  SETTINGS_NOT_COMPARED,
} from './registry.ts';

/** The live schema: every migration in api-server/drizzle applied to a temp SQLite file. */
let dir: string;
let db: Database.Database;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'registry-'));
  db = new Database(path.join(dir, 'schema.db'));
  db.exec(
    'CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)',
  );
  const sqlFiles = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  expect(sqlFiles.length).toBeGreaterThan(0);
  for (const file of sqlFiles) {
    for (const statement of fs
      .readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8')
      .split('--> statement-breakpoint')) {
      if (statement.trim()) db.exec(statement);
    }
  }
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const liveTables = () =>
  (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
const columnsOf = (table: string) =>
  db.prepare('SELECT name, type FROM pragma_table_info(?)').all(table) as { name: string; type: string }[];

describe('the table registry (guard)', () => {
  it('lists every live table as compared or deliberately not compared', () => {
    const unclassified = liveTables().filter((t) => !COMPARED_TABLES.includes(t) && !(t in NOT_COMPARED));
    expect(unclassified, `tables in neither list: ${unclassified.join(', ')}`).toEqual([]);
  });

  it('lists no table that no longer exists, and no table in both lists', () => {
    const live = new Set(liveTables());
    const gone = [...COMPARED_TABLES, ...Object.keys(NOT_COMPARED)].filter((t) => !live.has(t));
    expect(gone, `listed tables missing from the schema: ${gone.join(', ')}`).toEqual([]);
    expect(COMPARED_TABLES.filter((t) => t in NOT_COMPARED)).toEqual([]);
  });

  it('classifies every settings column as compared or not compared', () => {
    const compared = COMPARED.filter((t) => t.table === 'settings').flatMap((t) => t.columns ?? []);
    const missing = columnsOf('settings')
      .map((c) => c.name)
      .filter((c) => !compared.includes(c) && !(c in SETTINGS_NOT_COMPARED));
    expect(missing, `settings columns neither compared nor classified: ${missing.join(', ')}`).toEqual([]);
  });

  it('names only existing columns as keys, compared or ignored columns', () => {
    for (const entry of COMPARED) {
      const cols = columnsOf(entry.table).map((c) => c.name);
      for (const c of [...entry.key, ...(entry.columns ?? []), ...entry.ignored]) {
        expect(cols, `${entry.table}.${c}`).toContain(c);
      }
    }
  });

  it('knows every BLOB column as a sealed column', () => {
    for (const table of liveTables()) {
      for (const c of columnsOf(table).filter((c) => c.type.toLowerCase() === 'blob')) {
        expect(
          SEALED_COLUMNS.some((s) => s.table === table && s.column === c.name),
          `${table}.${c.name}`,
        ).toBe(true);
      }
    }
  });

  it('ignores updated_at everywhere, last_used_at, the external disk id and migration_pending', () => {
    const of = (table: string) => COMPARED.find((t) => t.table === table)!;
    expect(isComparedColumn(of('shares'), 'updated_at')).toBe(false);
    expect(isComparedColumn(of('api_tokens'), 'last_used_at')).toBe(false);
    expect(isComparedColumn(of('api_tokens'), 'expires_at')).toBe(true);
    expect(isComparedColumn(of('external_disks'), 'id')).toBe(false);
    expect(isComparedColumn(of('array_settings'), 'migration_pending')).toBe(false);
    expect(isComparedColumn(of('array_settings'), 'create_policy')).toBe(true);
  });
});
