import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OpenedDatabase, openDatabase } from '../db/open.ts';
import { type CachedCredential, CredentialCache } from './credential-cache.ts';

const credential: CachedCredential = {
  tokenId: 't1',
  tokenRole: 'admin',
  expiresAt: null,
  userId: 'u1',
  username: 'admin',
  userRole: 'admin',
};

describe('CredentialCache (on a real database file)', () => {
  let dir: string;
  let opened: OpenedDatabase;
  let now: number;
  let cache: CredentialCache;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credential-cache-'));
    opened = openDatabase(path.join(dir, 'state.db'));
    const at = new Date(0).toISOString();
    opened.sqlite
      .prepare(
        "insert into users (id, username, role, created_at, updated_at) values ('u1', 'admin', 'admin', ?, ?)",
      )
      .run(at, at);
    opened.sqlite
      .prepare(
        "insert into api_tokens (id, token_hash, user_id, name, role, created_at) values ('t1', 'h1', 'u1', 'ui', 'admin', ?)",
      )
      .run(at);
    now = 0;
    cache = new CredentialCache(opened.sqlite, { ttlMs: 1000, now: () => now });
    cache.set('h1', credential);
  });
  afterEach(() => {
    opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves an entry until its time to live has passed', () => {
    now = 999;
    expect(cache.get('h1')).toEqual(credential);
    now = 1000;
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it.each([
    ['a token is revoked', "delete from api_tokens where id = 't1'"],
    [
      'a token is created',
      "insert into api_tokens (id, token_hash, user_id, name, role, created_at) values ('t2', 'h2', 'u1', 'b', 'viewer', 'x')",
    ],
    ['a token changes', "update api_tokens set expires_at = '1970-01-01T00:00:00.000Z' where id = 't1'"],
    ['the owner changes role', "update users set role = 'viewer' where id = 'u1'"],
    ['the owner is deleted (tokens cascade)', "delete from users where id = 'u1'"],
  ])('is emptied by this connection’s write when %s', (_why, statement) => {
    opened.sqlite.exec(statement);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('is emptied by a write inside a transaction that is rolled back too (never stale, at worst re-read)', () => {
    opened.sqlite.exec('begin');
    opened.sqlite.exec("update users set username = 'root' where id = 'u1'");
    opened.sqlite.exec('rollback');
    expect(cache.get('h1')).toBeUndefined();
  });

  it('is not emptied by writes to other tables', () => {
    opened.sqlite.exec("insert into user_groups (id, name, created_at) values ('g1', 'family', 'x')");
    expect(cache.get('h1')).toEqual(credential);
  });

  it('sees another process’s write within the time to live', () => {
    const other = new Database(path.join(dir, 'state.db'));
    other.exec("delete from api_tokens where id = 't1'");
    other.close();
    now = 500;
    expect(cache.get('h1')).toEqual(credential); // not seen yet: at most ttlMs
    now = 1000;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('holds at most 1,024 entries', () => {
    for (let i = 0; i < 1100; i++) cache.set(`d${i}`, credential);
    expect(cache.size).toBeLessThanOrEqual(1024);
    expect(cache.get('d1099')).toEqual(credential);
  });
});
