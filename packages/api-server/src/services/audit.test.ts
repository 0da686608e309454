import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MIGRATIONS_DIR,
  migrationJournal,
  type OpenedDatabase,
  openDatabase,
  schemaVersion,
} from '../db/open.ts';
import { AuditLog } from './audit.ts';

const actor = {
  kind: 'user' as const,
  userId: 'u',
  username: 'admin',
  role: 'admin' as const,
  tokenId: null,
};

describe('audit_log ids (a plain rowid key, on a real database file)', () => {
  let dir: string;
  let opened: OpenedDatabase;
  let now: Date;
  let audit: AuditLog;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-'));
    opened = openDatabase(path.join(dir, 'state.db'));
    now = new Date('2026-01-01T00:00:00.000Z');
    audit = new AuditLog(() => now, opened.sqlite);
  });
  afterEach(() => {
    opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keep growing after a prune that finds every row too old (the newest row stays)', () => {
    const ids = [1, 2, 3].map(() => audit.record(opened.db, actor, { operation: 'x', target: 't' }));
    expect(ids).toEqual([1, 2, 3]);
    now = new Date('2028-01-01T00:00:00.000Z');
    expect(audit.prune(opened.db, new Date('2027-01-01T00:00:00.000Z'))).toBe(2);
    expect(audit.list(opened.db, 10, null).map((r) => r.id)).toEqual([3]);
    expect(audit.record(opened.db, actor, { operation: 'x', target: 't' })).toBe(4);
    expect(audit.lastId).toBe(4);
  });
});

describe('migration 0001_audit_log_rowid', () => {
  it('keeps every row and id of a database created by 0000_initial, and new ids follow them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-migration-'));
    try {
      // A database as the first release left it: only 0000_initial applied.
      const initialOnly = path.join(dir, 'migrations');
      fs.cpSync(MIGRATIONS_DIR, initialOnly, { recursive: true });
      const journalFile = path.join(initialOnly, 'meta', '_journal.json');
      const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8'));
      journal.entries = journal.entries.filter((e: { tag: string }) => e.tag === '0000_initial');
      fs.writeFileSync(journalFile, JSON.stringify(journal));
      const file = path.join(dir, 'state.db');
      const old = new Database(file);
      migrate(drizzle(old), { migrationsFolder: initialOnly });
      const insert = old.prepare(
        "insert into audit_log (at, actor, operation, target, outcome, details) values (?, 'admin', 'x', 't', 'ok', '{}')",
      );
      for (let i = 0; i < 5; i++) insert.run(`2026-01-0${i + 1}T00:00:00.000Z`);
      old.prepare('delete from audit_log where id = 5').run(); // AUTOINCREMENT remembered 5
      old.close();

      const upgraded = openDatabase(file);
      try {
        // upgraded through 0001 to the newest migration of the journal
        expect(migrationJournal().map((e) => e.tag)).toContain('0001_audit_log_rowid');
        expect(schemaVersion(upgraded.sqlite)).toBe(migrationJournal().at(-1)?.tag);
        const rows = upgraded.sqlite.prepare('select id, at from audit_log order by id').all();
        expect(rows).toEqual([1, 2, 3, 4].map((id) => ({ id, at: `2026-01-0${id}T00:00:00.000Z` })));
        const audit = new AuditLog(() => new Date(), upgraded.sqlite);
        expect(audit.record(upgraded.db, actor, { operation: 'x', target: 't' })).toBe(5);
        const indexes = upgraded.sqlite
          .prepare("select name from sqlite_master where type = 'index' and tbl_name = 'audit_log'")
          .pluck()
          .all();
        expect(indexes).toEqual([]);
      } finally {
        upgraded.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
