/** Reading the archive's and the live database (01 §3 rule 12, §4.5, §4.6). */
import Database from 'better-sqlite3';
import type { ArrayDiskRow } from '../core/blockers.ts';
import { invalidArchive } from '../core/errors.ts';
import { COMPARED_TABLES, type DbRows, type Row } from '../core/registry.ts';

/** Rule 12: opens `state.db` read-only (trusted_schema=OFF, no extensions) and checks its integrity. */
export function openArchiveDatabase(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('trusted_schema = OFF');
    const result = db.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new Error('integrity');
    return db;
  } catch {
    db?.close();
    throw invalidArchive('state.db is not an intact SQLite database', 'state.db');
  }
}

function tableExists(db: Database.Database, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

/** Every row of the compared tables, typed as stored (INTEGER → bigint, BLOB → Buffer). */
export function readComparedRows(db: Database.Database): DbRows {
  const out: Record<string, Row[]> = {};
  for (const table of COMPARED_TABLES) {
    out[table] = tableExists(db, table)
      ? (db.prepare(`SELECT * FROM "${table}"`).safeIntegers(true).all() as Row[])
      : [];
  }
  return out;
}

interface RawDisk {
  role: string;
  role_index: number;
  device: string;
  fs_uuid: string | null;
  wwn: string | null;
  serial: string | null;
  by_id_name: string | null;
  weak_identity: number;
  size_bytes: number | null;
  mountpoint: string;
  removal_state: string | null;
}

/** `array_disks` by the columns the archive contract fixes (never renamed). */
export function readArrayDisks(db: Database.Database): ArrayDiskRow[] {
  if (!tableExists(db, 'array_disks')) return [];
  const rows = db
    .prepare(
      'SELECT role, role_index, device, fs_uuid, wwn, serial, by_id_name, weak_identity, size_bytes, mountpoint, removal_state FROM array_disks',
    )
    .all() as RawDisk[];
  return rows.map((r) => ({
    role: r.role,
    roleIndex: Number(r.role_index),
    device: r.device,
    fsUuid: r.fs_uuid,
    wwn: r.wwn,
    serial: r.serial,
    byIdName: r.by_id_name,
    weakIdentity: Boolean(r.weak_identity),
    sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
    mountpoint: r.mountpoint,
    removalState: r.removal_state,
  }));
}

export function hasArray(db: Database.Database): boolean {
  return (
    tableExists(db, 'array_disks') && db.prepare('SELECT 1 FROM array_disks LIMIT 1').get() !== undefined
  );
}

/** The `machine_key_check` value (HMAC of the machine key), or null when the row is missing. */
export function readKeyCheck(db: Database.Database): string | null {
  if (!tableExists(db, 'machine_key_check')) return null;
  const row = db.prepare('SELECT hmac FROM machine_key_check WHERE id = 1').get() as
    | { hmac: unknown }
    | undefined;
  return typeof row?.hmac === 'string' ? row.hmac : null;
}

export interface SettingsRow {
  hostname: string;
  timezone: string;
  backupPassphrase: Buffer | null;
}

export function readSettings(db: Database.Database): SettingsRow | null {
  if (!tableExists(db, 'settings')) return null;
  const row = db.prepare('SELECT hostname, timezone, backup_passphrase FROM settings WHERE id = 1').get() as
    | { hostname: string; timezone: string; backup_passphrase: Buffer | null }
    | undefined;
  if (!row) return null;
  return { hostname: row.hostname, timezone: row.timezone, backupPassphrase: row.backup_passphrase };
}
