/**
 * The config import's decisions (08 §14), over plain data: which refusal answers first, what the
 * new database keeps from the live one, how sealed values travel, which files are put or removed,
 * and the order of the steps. The import runs the preview's analysis first (one reading, one set
 * of decisions), then these functions; adapters in ../node/import-*.ts carry them out.
 */
import { AppError, badRequest, conflict, confirmationRequired } from '@appliance/common';
import type { BareMetal, DiskMappingEntry } from './bare-metal.ts';
import { blockerError } from './blockers.ts';
import { compareCodePoints } from './codepoint.ts';
import { archiveFilesOf, archiveStackNames, type LiveFiles, STACK_FILES } from './files.ts';
import { isStackName } from './limits.ts';
import type { PreviewResponse } from './preview.ts';
import { COMPARED_TABLES, MIGRATION_TABLE, NOT_COMPARED, SEALED_COLUMNS } from './registry.ts';
import type { SecretsPayload } from './secrets.ts';

// ── refusals (08 §14 "Checks") ────────────────────────────────────────────────────────────────

/** The typed confirmation of an import: `RESTORE <manifest hostname>`. */
export const restorePhrase = (hostname: string): string => `RESTORE ${hostname}`;

export const MAX_MAPPING_ENTRIES = 512;

/**
 * The refusals that follow the preview's own errors, in the contract's order: a `diskMapping` sent
 * in place (400), the first blocker (its import status), a wrong confirmation
 * (`409 confirmation_required`), then a mapping entry that does not name a `matched` row with that
 * device (`409 disk_mapping_invalid`). `operations_running` comes after these (the lock).
 */
export function importRefusal(input: {
  preview: PreviewResponse;
  fresh: boolean;
  /** The `confirmation` part as sent; `null` when it was not sent. */
  confirmation: string | null;
  diskMapping: readonly DiskMappingEntry[] | undefined;
}): AppError | null {
  const { preview, fresh } = input;
  if (!fresh && input.diskMapping !== undefined) {
    return badRequest([
      {
        path: 'diskMapping',
        message: 'diskMapping is only for a fresh install (a box with no array); send none here.',
      },
    ]);
  }
  const blocker = preview.blockers[0];
  if (blocker) return blockerError(blocker);
  const expected = restorePhrase(preview.archive.hostname);
  if (input.confirmation !== expected) {
    return confirmationRequired(expected);
  }
  return mappingRefusal(preview.bareMetal, input.diskMapping ?? []);
}

function mappingRefusal(
  bareMetal: BareMetal | undefined,
  mapping: readonly DiskMappingEntry[],
): AppError | null {
  const disks = bareMetal?.disks ?? [];
  const slots = new Set<string>();
  const devices = new Set<string>();
  for (const entry of mapping) {
    const slot = `${entry.role} disk ${entry.roleIndex}`;
    const row = disks.find((d) => d.role === entry.role && d.roleIndex === entry.roleIndex);
    let reason: string | null = null;
    if (!row) reason = `the archive records no ${slot}`;
    else if (row.state !== 'matched')
      reason = `${row.name} is ${row.state}, and only a matched disk can be mapped`;
    else if (row.device !== entry.device)
      reason = `${row.name} matched ${row.device ?? 'no disk'}, not ${entry.device}`;
    else if (slots.has(slot)) reason = `${slot} is mapped twice`;
    else if (devices.has(entry.device)) reason = `${entry.device} is mapped twice`;
    if (reason !== null) {
      return conflict(
        'disk_mapping_invalid',
        `The disk mapping cannot be used: ${reason}. Send the diskMapping of a fresh preview (bareMetal.diskMapping).`,
        { entry: { role: entry.role, roleIndex: entry.roleIndex, device: entry.device } },
      );
    }
    slots.add(slot);
    devices.add(entry.device);
  }
  return null;
}

// ── the database ──────────────────────────────────────────────────────────────────────────────

/** `archive`: the table's rows become the prepared database's; `live`: the live rows stay. */
export type TableSource = 'archive' | 'live';

/** How sealed columns reach the new database (00 §4: sealed under the machine key in use after). */
export type SealingMode =
  /** The archive's sealed bytes were sealed under the key the box runs with afterwards: kept. */
  | 'keep'
  /** Re-sealed from the opened `secrets.age` (and the passphrase that opened it). */
  | 'reseal'
  /** Cleared: NULL, or an empty sealed value where the column is NOT NULL (`stacks.env`). */
  | 'clear';

export interface DatabasePlan {
  /** Every live table (except SQLite's own) → where its rows come from. */
  tables: Record<string, TableSource>;
  /** In place: `array_settings` columns whose live values are kept in the archive's row. */
  liveColumns: { table: string; columns: string[] }[];
  /** Fresh install: `array_disks.device` rewritten from the mapping (slot → device). */
  deviceRewrites: DiskMappingEntry[];
  /** `adopt`: the archived machine key (identity opened on a fresh install) replaces the live one. */
  machineKey: 'keep' | 'adopt';
  sealing: SealingMode;
  /** Live notification deliveries whose channel is not in the new configuration are dropped. */
  dropOrphanDeliveries: boolean;
}

/** History and runtime state the import never restores: the live rows stay. */
const LIVE_HISTORY = new Set([
  'audit_log',
  'notify_alerts',
  'notify_deliveries',
  'jobs',
  'schedule_runs',
  'parity_state',
  // runtime and history of this machine's watchers (issue 22)
  'watcher_conditions',
  'smart_readings',
  'generated_files',
  'backup_plan_state',
  'backup_snapshots',
  'system_updates',
  MIGRATION_TABLE,
]);

/**
 * Where each table's rows come from (08 §14 step 2). An unknown table is an error: a new table
 * must be classified in the registry (the preview's guard test) before an import can restore it.
 */
export function databasePlan(input: {
  liveTables: readonly string[];
  fresh: boolean;
  /** `identity` opened (the archived key is known and matches the archive's key check). */
  identityOpened: boolean;
  /** `secrets.age` opened. */
  secretsOpened: boolean;
  /** The archive's `machine_key_check` value, and the live one. */
  archiveKeyCheck: string | null;
  liveKeyCheck: string;
  diskMapping: readonly DiskMappingEntry[];
}): DatabasePlan {
  const adopt = input.fresh && input.identityOpened;
  const tables: Record<string, TableSource> = {};
  for (const table of [...input.liveTables].sort(compareCodePoints)) {
    if (table.startsWith('sqlite_')) continue;
    if (LIVE_HISTORY.has(table)) tables[table] = 'live';
    else if (table === 'machine_key_check') tables[table] = adopt ? 'archive' : 'live';
    else if (table === 'array_disks') tables[table] = input.fresh ? 'archive' : 'live';
    else if (COMPARED_TABLES.includes(table) || table in NOT_COMPARED) tables[table] = 'archive';
    else throw new Error(`table ${table} is not classified for the import (core/registry.ts)`);
  }
  const keyAfter = adopt ? input.archiveKeyCheck : input.liveKeyCheck;
  const sealing: SealingMode =
    input.archiveKeyCheck !== null && keyAfter === input.archiveKeyCheck
      ? 'keep'
      : input.secretsOpened
        ? 'reseal'
        : 'clear';
  return {
    tables,
    liveColumns: input.fresh
      ? []
      : [{ table: 'array_settings', columns: ['migration_pending', 'migration_pending_since'] }],
    deviceRewrites: input.fresh ? [...input.diskMapping] : [],
    machineKey: adopt ? 'adopt' : 'keep',
    sealing,
    dropOrphanDeliveries: true,
  };
}

/** One sealed value to write: the row's key, and the plaintext (null = NULL). */
export interface SealedWrite {
  table: string;
  column: string;
  key: (string | number | null)[];
  plain: Buffer | null;
}

/**
 * The plaintexts of the sealed columns for `reseal` and `clear` (empty for `keep`), given the
 * archive's rows' keys. `backup_passphrase` becomes the passphrase that opened `secrets.age`
 * (it was sealed with it) when the archive had one; `stacks.env` the `.env` body `secrets.age`
 * carries (empty when none). A NOT NULL column is cleared to an empty value, others to NULL.
 */
export function sealedWrites(input: {
  mode: SealingMode;
  /** Key values of the archive's rows whose sealed column is set, per `table.column`. */
  rows: Record<string, (string | number | null)[][]>;
  secrets: SecretsPayload | null;
  passphrase: string;
}): SealedWrite[] {
  if (input.mode === 'keep') return [];
  const out: SealedWrite[] = [];
  for (const c of SEALED_COLUMNS) {
    const notNull = c.table === 'stacks' && c.column === 'env';
    for (const key of input.rows[`${c.table}.${c.column}`] ?? []) {
      let plain: Buffer | null = notNull ? Buffer.alloc(0) : null;
      if (input.mode === 'reseal' && input.secrets) {
        if (c.table === 'settings' && c.column === 'backup_passphrase') {
          plain = Buffer.from(input.passphrase, 'utf8');
        } else if (c.table === 'stacks' && c.column === 'env') {
          const env = input.secrets.stacks.find((s) => s.name === key[0]);
          plain = Buffer.from(env?.env ?? '', 'base64');
        } else {
          const found = input.secrets.sealed.find(
            (s) => s.table === c.table && s.column === c.column && sameKey(s.key, key),
          );
          plain = found ? Buffer.from(found.value, 'base64') : plain;
        }
      }
      out.push({ table: c.table, column: c.column, key, plain });
    }
  }
  return out;
}

const sameKey = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => String(x) === String(b[i]) && typeof x === typeof b[i]);

// ── files ─────────────────────────────────────────────────────────────────────────────────────

/** The roots the import replaces files under. `etc` = `/etc/appliance`. */
export type ImportRoot = 'etc' | 'catalog' | 'stacks';

export type FileSource =
  /** An extracted archive file (its entry name). */
  | { kind: 'archive'; name: string }
  /** The archive's `templates/` tree, as a whole directory (may be absent: an empty catalog). */
  | { kind: 'catalog' }
  /** A stack's `.env` body from `secrets.age`. */
  | { kind: 'env'; stack: string };

/** One path of the swap: `put` replaces (or creates) it, `remove` moves the live one aside. */
export interface FileOp {
  root: ImportRoot;
  /** Relative to the root; `''` for the root itself (the catalog directory). */
  rel: string;
  action: 'put' | 'remove';
  source?: FileSource;
  /** File mode of what is put (directories of a tree get 0755). */
  mode: number;
}

/**
 * Every path the swap touches, in a stable order (08 §14 step 3): the catalog directory as a
 * whole; every `*.custom.conf` (the archive's put, the other live ones removed); each archived
 * stack's `docker-compose.yml` and `meta.json` (put, or removed when the archive lacks one) and,
 * when `secrets.age` opened, its `.env` (put at 0600 when non-empty, else removed); every file of a
 * live stack the archive does not have (removed, `.env` included). Without opened secrets an
 * archived stack's live `.env` is left as it is (not restored; the response names those stacks).
 */
export function filesPlan(input: {
  archive: ReadonlyMap<string, string>;
  live: LiveFiles;
  /** Live stack directories (valid names) and whether each has a `.env`. */
  liveStacks: readonly { name: string; hasEnv: boolean }[];
  secrets: SecretsPayload | null;
}): FileOp[] {
  const ops: FileOp[] = [
    { root: 'catalog', rel: '', action: 'put', source: { kind: 'catalog' }, mode: 0o755 },
  ];

  const custom = archiveFilesOf('custom_config', input.archive);
  const customRels = new Set([...custom.keys(), ...input.live.custom_config.files.map((f) => f.rel)]);
  for (const rel of [...customRels].sort(compareCodePoints)) {
    ops.push(
      custom.has(rel)
        ? { root: 'etc', rel, action: 'put', source: { kind: 'archive', name: `custom/${rel}` }, mode: 0o644 }
        : { root: 'etc', rel, action: 'remove', mode: 0o644 },
    );
  }

  const stackFiles = archiveFilesOf('stacks', input.archive);
  const archived = archiveStackNames(input.archive);
  const names = new Set([...archived, ...input.liveStacks.map((s) => s.name)]);
  for (const name of [...names].sort(compareCodePoints)) {
    if (!isStackName(name)) continue;
    const inArchive = archived.includes(name);
    for (const file of STACK_FILES) {
      const rel = `${name}/${file}`;
      const liveHas = input.live.stacks.files.some((f) => f.rel === rel);
      if (inArchive && stackFiles.has(rel))
        ops.push({
          root: 'stacks',
          rel,
          action: 'put',
          source: { kind: 'archive', name: `stacks/${rel}` },
          mode: 0o644,
        });
      else if (liveHas) ops.push({ root: 'stacks', rel, action: 'remove', mode: 0o644 });
    }
    const envRel = `${name}/.env`;
    const liveEnv = input.liveStacks.find((s) => s.name === name)?.hasEnv ?? false;
    if (!inArchive) {
      if (liveEnv) ops.push({ root: 'stacks', rel: envRel, action: 'remove', mode: 0o600 });
    } else if (input.secrets) {
      const env = input.secrets.stacks.find((s) => s.name === name)?.env ?? '';
      if (env.length > 0)
        ops.push({
          root: 'stacks',
          rel: envRel,
          action: 'put',
          source: { kind: 'env', stack: name },
          mode: 0o600,
        });
      else if (liveEnv) ops.push({ root: 'stacks', rel: envRel, action: 'remove', mode: 0o600 });
    }
  }
  return ops;
}

// ── steps ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The steps in order, named as `details.step` of `500 import_failed` and the progress events.
 * The database commit comes last, with the audit row, in one transaction: it is the point of no
 * return (everything before it is undone on failure or after a crash; see docs/decisions).
 */
export const IMPORT_STEPS = [
  'pre_import_archive',
  'prepare_database',
  'swap_files',
  'regenerate_samba',
  'mount_disks',
  'commit',
] as const;
export type ImportStep = (typeof IMPORT_STEPS)[number];

/** The steps this import runs (`mount_disks` only on a fresh install with a mapping). */
export function importSteps(input: { fresh: boolean; mappedDisks: number }): ImportStep[] {
  return IMPORT_STEPS.filter((s) => s !== 'mount_disks' || (input.fresh && input.mappedDisks > 0));
}

/** `500 import_failed`: the step that failed; the box is as it was before. */
export function importFailed(step: ImportStep): AppError {
  return new AppError(
    500,
    'import_failed',
    `The import failed at step "${step}"; everything it had changed was put back, so the box is as it was before. See the service log for the cause, fix it, and import again.`,
    { step },
  );
}

/** What a mapped disk needs: mount the recorded slot's filesystem at its mountpoint. */
export interface MountOp {
  role: string;
  roleIndex: number;
  device: string;
  mountpoint: string;
  fsUuid: string;
}

/** The mounts of a fresh install: each mapped (matched) disk at the mountpoint the archive records. */
export function mountsPlan(
  bareMetal: BareMetal | undefined,
  mapping: readonly DiskMappingEntry[],
): MountOp[] {
  const out: MountOp[] = [];
  for (const m of mapping) {
    const d = bareMetal?.disks.find((x) => x.role === m.role && x.roleIndex === m.roleIndex);
    if (!d) continue;
    out.push({
      role: m.role,
      roleIndex: m.roleIndex,
      device: m.device,
      mountpoint: d.mountpoint,
      fsUuid: d.fsUuid,
    });
  }
  return out;
}
