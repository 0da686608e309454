/**
 * Config export (01 §2): snapshot the live database with `VACUUM INTO` into a private temp dir,
 * read hostname and passphrase from the snapshot, unseal the values for `secrets.age`, and stream
 * `state.db`, the age files, `custom/…`, `templates/…`, `stacks/…` (each sorted), then the manifest.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type Clock, type HostPaths, isoMillis } from '@appliance/common';
import Database from 'better-sqlite3';
import { compareCodePoints } from '../core/codepoint.ts';
import { ARCHIVE_PREFIX, STACK_FILES } from '../core/files.ts';
import { isStackName } from '../core/limits.ts';
import { SEALED_COLUMNS } from '../core/registry.ts';
import { renderIdentity, renderSecrets, type SecretsPayload } from '../core/secrets.ts';
import { encryptWithPassphrase } from './age-files.ts';
import { type ArchiveEntry, archiveStream } from './archive-writer.ts';
import { type FsPort, listLiveFiles, nodeFs } from './live-files.ts';
import { readSettings } from './sqlite.ts';
import { makePrivateTempDir, removeTempDir } from './temp-dir.ts';

/** Machine-key sealing (00 §4), provided by the server. */
export interface Sealer {
  /** Unseals a value sealed under the machine key (AES-256-GCM); throws when it cannot. */
  unseal(sealed: Uint8Array): Buffer;
}

export interface ExportDeps {
  paths: HostPaths;
  /** The live database connection. */
  db: Database.Database;
  sealer: Sealer;
  /** The 32-byte machine key (for `identity.age`). */
  machineKey(): Buffer | Promise<Buffer>;
  appVersion: string;
  clock: Clock;
  fs?: FsPort;
  /** Skipped entries (symbolic links, other non-regular files) are reported here. */
  log?: (message: string) => void;
}

export interface ExportResult {
  filename: string;
  hostname: string;
  createdAt: string;
  /** The archive; it errors (and the caller aborts the connection) if a file fails mid-way. */
  stream: Readable;
  /** Settles when the stream ended (resolved) or failed (rejected); the temp dir is gone by then. */
  done: Promise<void>;
}

const DEFAULT_HOSTNAME = 'appliance';

export function exportFilename(hostname: string, createdAt: string): string {
  const stamp = createdAt.replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `appliance-config-${hostname}-${stamp}.tar.zst`;
}

/** Prepares the export (everything that can fail before the first byte) and returns the stream. */
export async function startExport(deps: ExportDeps): Promise<ExportResult> {
  const fsp = deps.fs ?? nodeFs;
  const tmp = await makePrivateTempDir(deps.paths, 'export');
  try {
    const snapshot = path.join(tmp, 'state.db');
    const createdAt = isoMillis(deps.clock.now());
    deps.db.prepare('VACUUM INTO ?').run(snapshot);
    const copy = new Database(snapshot);
    let hostname = DEFAULT_HOSTNAME;
    let secretsFiles: ArchiveEntry[] = [];
    try {
      copy.pragma('journal_mode = DELETE');
      const settings = readSettings(copy);
      if (settings?.hostname) hostname = settings.hostname;
      if (settings?.backupPassphrase) {
        const passphrase = deps.sealer.unseal(settings.backupPassphrase).toString('utf8');
        const sealed = unsealedValues(copy, deps.sealer);
        const stacks = await stackEnvs(deps.paths, fsp);
        const payload = renderSecrets({ sealed, stacks });
        const key = await deps.machineKey();
        secretsFiles = [
          { name: 'secrets.age', bytes: await encryptWithPassphrase(payload, passphrase) },
          { name: 'identity.age', bytes: await encryptWithPassphrase(renderIdentity(key), passphrase) },
        ];
      }
    } finally {
      copy.close();
    }
    const files = await exportFiles(deps.paths, fsp, deps.log);
    const entries: ArchiveEntry[] = [
      { name: 'state.db', open: () => openRegular(snapshot) },
      ...secretsFiles,
      ...files,
    ];
    let settle!: { resolve: () => void; reject: (e: unknown) => void };
    const done = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    done.catch(() => undefined);
    const stream = archiveStream(
      entries,
      { createdAt, hostname, appVersion: deps.appVersion },
      async (err) => {
        await removeTempDir(tmp);
        if (err) settle.reject(err);
        else settle.resolve();
      },
    );
    return { filename: exportFilename(hostname, createdAt), hostname, createdAt, stream, done };
  } catch (err) {
    await removeTempDir(tmp);
    throw err;
  }
}

/** Every sealed value carried by `secrets.age`, unsealed, keys in key order. */
function unsealedValues(db: Database.Database, sealer: Sealer): SecretsPayload['sealed'] {
  const out: SecretsPayload['sealed'] = [];
  for (const c of SEALED_COLUMNS) {
    if (!c.inSecrets) continue;
    const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(c.table);
    if (!exists) continue;
    const keyList = c.key.map((k) => `"${k}"`).join(', ');
    const rows = db
      .prepare(
        `SELECT ${keyList}, "${c.column}" AS v FROM "${c.table}" WHERE "${c.column}" IS NOT NULL ORDER BY ${keyList}`,
      )
      .all() as Record<string, unknown>[];
    for (const row of rows) {
      out.push({
        table: c.table,
        column: c.column,
        key: c.key.map((k) => row[k] as string | number | null),
        value: sealer.unseal(row['v'] as Buffer).toString('base64'),
      });
    }
  }
  return out;
}

async function stackNames(paths: HostPaths, fsp: FsPort): Promise<string[]> {
  const st = await fsp.lstat(paths.stacksDir);
  if (!st?.isDirectory()) return [];
  const names: string[] = [];
  for (const name of (await fsp.readdir(paths.stacksDir)).sort(compareCodePoints)) {
    if (isStackName(name) && (await fsp.lstat(path.join(paths.stacksDir, name)))?.isDirectory())
      names.push(name);
  }
  return names;
}

/** `.env` bodies of the archived stacks (non-empty regular files only). */
async function stackEnvs(paths: HostPaths, fsp: FsPort): Promise<SecretsPayload['stacks']> {
  const out: SecretsPayload['stacks'] = [];
  for (const name of await stackNames(paths, fsp)) {
    const file = path.join(paths.stacksDir, name, '.env');
    const st = await fsp.lstat(file);
    if (!st?.isFile() || st.size === 0) continue;
    const body = await fs.readFile(file);
    if (body.length > 0) out.push({ name, env: body.toString('base64') });
  }
  return out;
}

async function openRegular(real: string): Promise<{ handle: fs.FileHandle; size: number }> {
  const handle = await fs.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${real} is no longer a regular file`);
    return { handle, size: st.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** `custom/…`, `templates/…`, `stacks/…` entries: regular files only, each list sorted. */
async function exportFiles(
  paths: HostPaths,
  fsp: FsPort,
  log?: (m: string) => void,
): Promise<ArchiveEntry[]> {
  const live = await listLiveFiles(paths, fsp, false);
  const out: ArchiveEntry[] = [];
  const real = { custom_config: paths.etcDir, templates: paths.catalogDir, stacks: paths.stacksDir } as const;
  for (const category of ['custom_config', 'templates', 'stacks'] as const) {
    for (const f of live[category].files) {
      if (f.kind !== 'file') {
        log?.(`config export: skipped ${live[category].root}/${f.rel}, which is not a regular file`);
        continue;
      }
      if (category === 'stacks' && !(STACK_FILES as readonly string[]).includes(path.basename(f.rel)))
        continue;
      const file = path.join(real[category], f.rel);
      out.push({ name: `${ARCHIVE_PREFIX[category]}${f.rel}`, open: () => openRegular(file) });
    }
  }
  return out;
}
