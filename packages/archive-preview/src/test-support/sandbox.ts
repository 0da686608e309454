/**
 * Test support: a sandboxed installation (root prefix) with a migrated, seeded live database,
 * a machine key, sealed secrets and the files export archives. Used by the tests and the benchmark.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostPaths, fixedClock, type HostPaths } from '@appliance/common';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { Sealer } from '../node/export.ts';
import { startExport } from '../node/export.ts';
import { loadMigrations, type Migrations } from '../node/migrations.ts';
import type { PreviewDeps } from '../node/preview.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../api-server/drizzle', import.meta.url));
/** Same label and format as api-server's machine key (db/machine-key.ts). */
export const KEY_CHECK_LABEL = 'appliance machine key check v1';

export function aesSealer(key: Buffer): Sealer & { seal(plain: string | Buffer): Buffer } {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([iv, body, c.getAuthTag()]);
    },
    unseal(sealed) {
      const b = Buffer.from(sealed);
      const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, 12));
      d.setAuthTag(b.subarray(b.length - 16));
      return Buffer.concat([d.update(b.subarray(12, b.length - 16)), d.final()]);
    },
  };
}

export const keyCheckOf = (key: Buffer): string =>
  createHmac('sha256', key).update(KEY_CHECK_LABEL).digest('hex');

export interface Sandbox {
  root: string;
  paths: HostPaths;
  db: Database.Database;
  key: Buffer;
  sealer: ReturnType<typeof aesSealer>;
  migrations: Migrations;
  deps(extra?: Partial<PreviewDeps>): PreviewDeps;
  exportArchive(): Promise<Buffer>;
  write(logical: string, content: string | Buffer, mode?: number): void;
  close(): void;
}

export interface SandboxOptions {
  migrationsDir?: string;
  /** Seed the demo installation (default true). */
  seed?: boolean;
  /** Record an array (default true); false makes a fresh install. */
  array?: boolean;
  passphrase?: string | null;
  key?: Buffer;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-preview-sbx-'));
  const paths = createHostPaths({ root });
  for (const dir of [paths.etcDir, paths.stateDir, paths.stacksDir, paths.catalogDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  const key = options.key ?? randomBytes(32);
  fs.writeFileSync(paths.machineKey, key, { mode: 0o600 });
  const migrations = loadMigrations(options.migrationsDir ?? MIGRATIONS_DIR);
  const db = new Database(paths.database);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(drizzle(db), { migrationsFolder: migrations.folder });
  fs.chmodSync(paths.database, 0o600);
  const sealer = aesSealer(key);
  const sb: Sandbox = {
    root,
    paths,
    db,
    key,
    sealer,
    migrations,
    deps: (extra = {}) => ({
      paths,
      db,
      migrations,
      sealer,
      keyCheck: keyCheckOf,
      inventory: null,
      ...extra,
    }),
    async exportArchive() {
      const r = await startExport({
        paths,
        db,
        sealer,
        machineKey: () => key,
        appVersion: '1.4.0',
        clock: fixedClock('2026-09-01T03:00:00.000Z'),
      });
      const chunks: Buffer[] = [];
      for await (const c of r.stream) chunks.push(c as Buffer);
      await r.done;
      return Buffer.concat(chunks);
    },
    write(logical, content, mode = 0o644) {
      const real = paths.real(logical);
      fs.mkdirSync(path.dirname(real), { recursive: true });
      fs.writeFileSync(real, content, { mode });
    },
    close() {
      db.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  if (options.seed !== false) seed(sb, options);
  return sb;
}

const T0 = '2026-08-01T10:00:00.000Z';

function seed(sb: Sandbox, options: SandboxOptions): void {
  const { db, sealer, key } = sb;
  const passphrase = options.passphrase === undefined ? 'correct horse battery' : options.passphrase;
  const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params);
  db.transaction(() => {
    run('INSERT INTO machine_key_check (id, hmac, created_at) VALUES (1, ?, ?)', keyCheckOf(key), T0);
    run(
      'INSERT INTO settings (id, hostname, timezone, backup_passphrase, updated_at) VALUES (1, ?, ?, ?, ?)',
      'nas',
      'Europe/Berlin',
      passphrase === null ? null : sealer.seal(passphrase),
      T0,
    );
    run("INSERT INTO users VALUES ('u-admin', 'admin', 'admin', 'hash-a', ?, ?)", T0, T0);
    run("INSERT INTO users VALUES ('u-alice', 'alice', 'share-only', 'hash-b', ?, ?)", T0, T0);
    run("INSERT INTO user_groups VALUES ('g-family', 'family', ?)", T0);
    run("INSERT INTO user_group_members VALUES ('g-family', 'u-alice')");
    run(
      "INSERT INTO api_tokens VALUES ('t-1', ?, 'u-admin', 'cli', 'admin', ?, NULL, NULL)",
      createHash('sha256').update('apat_x').digest('hex'),
      T0,
    );
    for (const share of ['media', 'photos']) {
      run("INSERT INTO shares VALUES (?, 'cache-then-move', 'mfs', 1, 1, ?, ?)", share, T0, T0);
    }
    run("INSERT INTO share_user_permissions VALUES ('media', 'u-alice', 'read-write')");
    run("INSERT INTO share_group_permissions VALUES ('photos', 'g-family', 'read-only')");
    run(
      "INSERT INTO notify_channels VALUES ('c-1', 'phone', 'ntfy', 1, '{\"topic\":\"nas\"}', ?, ?, ?)",
      sealer.seal('ntfy-token'),
      T0,
      T0,
    );
    run("INSERT INTO notify_routes VALUES ('disk.failed', 'c-1')");
    run("INSERT INTO notify_event_severity VALUES ('disk.failed', 'critical')");
    run("INSERT INTO array_settings VALUES (1, 'mfs', 0, NULL, ?)", T0);
    run(
      "INSERT INTO external_disks (label, device, filesystem, fs_uuid, wwn, serial, by_id_name, weak_identity, size_bytes, backup_destination, created_at) VALUES ('backup', '/dev/sdx', 'ext4', 'ext-uuid', NULL, 'EXT1', NULL, 0, 1000, 1, ?)",
      T0,
    );
    run("INSERT INTO catalog_sources VALUES ('main', 'builtin', 0, NULL, NULL, NULL, NULL, NULL, ?)", T0);
    run(
      "INSERT INTO stacks VALUES ('web', 'main', 'nextcloud', 1, 'services: {}', ?, ?, 0, 0)",
      sealer.seal('PASSWORD=x'),
      T0,
    );
    run(
      "INSERT INTO audit_log (at, actor, operation, target, outcome) VALUES (?, 'admin', 'setup', '-', 'ok')",
      T0,
    );
    if (options.array !== false) {
      const disk = db.prepare(
        'INSERT INTO array_disks (role, role_index, device, filesystem, fs_uuid, wwn, serial, by_id_name, weak_identity, size_bytes, mountpoint, removal_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)',
      );
      disk.run(
        'parity',
        1,
        '/dev/sdb',
        'xfs',
        'uuid-p1',
        '0x5000c500aaaa0001',
        'SER-P1',
        'ata-P1',
        0,
        4000,
        '/mnt/parity1',
      );
      disk.run(
        'data',
        1,
        '/dev/sdc',
        'xfs',
        'uuid-d1',
        '0x5000c500aaaa0002',
        'SER-D1',
        'ata-D1',
        0,
        4000,
        '/mnt/disk1',
      );
    }
  })();
  sb.write('/etc/appliance/config.toml', 'port = 8008\n');
  sb.write('/etc/appliance/smb.custom.conf', '[global]\n  workgroup = HOME\n');
  sb.write('/etc/appliance/samba/media.custom.conf', 'veto files = /.DS_Store/\n');
  sb.write('/etc/appliance/samba/smb.conf', '# generated\n');
  sb.write(
    '/var/lib/appliance/catalog/main/nextcloud/compose.yaml',
    'services:\n  app:\n    image: nextcloud\n',
  );
  sb.write('/var/lib/appliance/catalog/main/nextcloud/meta.json', '{"id":"nextcloud"}\n');
  sb.write('/var/lib/appliance/stacks/web/docker-compose.yml', 'services:\n  web:\n    image: nginx\n');
  sb.write('/var/lib/appliance/stacks/web/meta.json', '{"name":"web"}\n');
  sb.write('/var/lib/appliance/stacks/web/.env', 'PASSWORD=x\n', 0o600);
}

/** A logical dump of every table, rows in key order (for "the preview writes nothing"). */
export function dumpDatabase(db: Database.Database): string {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  const out: string[] = [];
  for (const { name } of tables) {
    const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as { name: string }[]).map(
      (c) => `"${c.name}"`,
    );
    const rows = db
      .prepare(`SELECT * FROM "${name}" ORDER BY ${cols.join(', ')}`)
      .raw()
      .all();
    out.push(
      `${name}: ${JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v && v.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v))}`,
    );
  }
  return out.join('\n');
}

/** Path, type, size, mode and SHA-256 of every entry under `root`, except `skip`. */
export function treeListing(root: string, skip: string[] = []): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (skip.includes(p)) continue;
      const st = fs.lstatSync(p);
      const type = st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o';
      const sha =
        st.isFile() && !p.endsWith('-shm')
          ? createHash('sha256').update(fs.readFileSync(p)).digest('hex')
          : '';
      out.push(
        `${path.relative(root, p)} ${type} ${st.isFile() ? st.size : 0} ${(st.mode & 0o7777).toString(8)} ${sha}`,
      );
      if (type === 'd') walk(p);
    }
  };
  walk(root);
  return out;
}
