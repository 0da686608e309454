/**
 * The import preview (01 §4): reads the archive (§3), both schema versions, the live database in
 * one read transaction, resolves the secrets, and computes blockers, groups, notes and bareMetal.
 * It writes only into its own temp directory, which is removed on every path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError, type HostPaths, type InventoryReader, notConfigured } from '@appliance/common';
import type Database from 'better-sqlite3';
import { type BareMetal, matchDisks } from '../core/bare-metal.ts';
import { type ArrayDiskRow, type Blocker, databaseBlocker } from '../core/blockers.ts';
import { type Changes, compareDatabases } from '../core/db-groups.ts';
import { invalidArchive } from '../core/errors.ts';
import { archiveStackNames, decideFiles, pathsToInspect, unsafeMessage } from '../core/files.ts';
import { notesFor } from '../core/notes.ts';
import { assemblePreview, type PreviewResponse } from '../core/preview.ts';
import type { Category, DbRows } from '../core/registry.ts';
import { relateVersions, type SchemaVersion } from '../core/schema-version.ts';
import {
  choosePassphrase,
  mustOpen,
  type OpenOutcome,
  parseIdentity,
  parseSecrets,
  resolveSecrets,
  type SecretsPayload,
  type SecretsResolution,
  stacksWithEnv,
} from '../core/secrets.ts';
import { openAgeFile } from './age-files.ts';
import { type ArchiveContents, readArchive } from './archive-reader.ts';
import type { Sealer } from './export.ts';
import { type FsPort, inspectPaths, listLiveFiles, nodeFs } from './live-files.ts';
import {
  type Migrations,
  readArchiveSchemaVersion,
  readSchemaVersion,
  upgradeStagedCopy,
} from './migrations.ts';
import {
  hasArray,
  openArchiveDatabase,
  readArrayDisks,
  readComparedRows,
  readKeyCheck,
  readSettings,
} from './sqlite.ts';
import { makePrivateTempDir, removeTempDir } from './temp-dir.ts';
import { checkContentLength, receiveUpload } from './upload.ts';

export interface PreviewDeps {
  paths: HostPaths;
  /** The live database connection (read in one deferred transaction; nothing is written). */
  db: Database.Database;
  migrations: Migrations;
  /** Unseals the configured backup passphrase (a failure is a 500). */
  sealer: Sealer;
  /** HMAC-SHA256(key, the fixed label), as stored in `machine_key_check.hmac`. */
  keyCheck(machineKey: Buffer): string;
  /** The disk inventory; required on a fresh install (501 otherwise). */
  inventory?: InventoryReader | null;
  fs?: FsPort;
}

/** The whole reading (§3–§4.12) of one archive stream, with its own temp directory. */
export async function previewArchive(
  deps: PreviewDeps,
  archive: Readable | AsyncIterable<Uint8Array>,
  passphrase: string | undefined,
  signal?: AbortSignal,
): Promise<PreviewResponse> {
  const tmp = await makePrivateTempDir(deps.paths, 'preview');
  try {
    const contents = await readArchive(archive, { tempDir: tmp, ...(signal ? { signal } : {}) });
    return (await analyzeArchive(deps, contents, passphrase, tmp)).response;
  } finally {
    await removeTempDir(tmp);
  }
}

/** §4.4 step 3: a fresh install needs the disk inventory; checked before the upload is read. */
export function assertPreviewWired(deps: Pick<PreviewDeps, 'db' | 'inventory'>): void {
  if (!deps.inventory && !hasArray(deps.db)) {
    throw notConfigured(
      'The disk inventory reader is not configured, and this box has no array: configure the disk inventory (or lab mode) before restoring an archive.',
    );
  }
}

interface LiveState {
  version: SchemaVersion;
  fresh: boolean;
  rows: DbRows;
  disks: ArrayDiskRow[];
  keyCheck: string | null;
  sealedPassphrase: Buffer | null;
}

/** What the preview decided, with what the import needs beyond the response. */
export interface Analysis {
  response: PreviewResponse;
  fresh: boolean;
  secrets: SecretsResolution;
  /** The staged, upgraded copy of an older archive's database (fresh install), or null. */
  upgradedDbPath: string | null;
}

/** Steps 5–9 on a verified archive. `tmp` is the private temp directory holding `state.db`. */
export async function analyzeArchive(
  deps: PreviewDeps,
  contents: ArchiveContents,
  sent: string | undefined,
  tmp: string,
): Promise<Analysis> {
  const archiveDb = openArchiveDatabase(contents.stateDbPath);
  try {
    const archiveVersion = readArchiveSchemaVersion(archiveDb, deps.migrations);
    const live = readLive(deps);
    const relation = relateVersions(archiveVersion, live.version);
    const fresh = live.fresh;
    if (fresh && !deps.inventory) assertPreviewWired({ db: deps.db, inventory: null });

    // Step 6: secrets (an error is held until step 9).
    const archiveKeyCheck = readArchivePart(() => readKeyCheck(archiveDb));
    const secrets = await resolveArchiveSecrets(deps, contents, sent, live, archiveKeyCheck);

    // Step 7: blockers, groups, files, notes, bareMetal.
    let upgradeError: string | null = null;
    let upgradedDbPath: string | null = null;
    let recordedDisks = readArchivePart(() => readArrayDisks(archiveDb));
    if (fresh && relation === 'older') {
      const staged = path.join(tmp, 'upgraded.db');
      await fs.copyFile(contents.stateDbPath, staged);
      const result = await upgradeStagedCopy(staged, deps.migrations, live.version);
      if (result.ok) {
        upgradedDbPath = staged;
        recordedDisks = readFrom(staged, readArrayDisks);
      } else upgradeError = result.error;
    }
    const dbBlocker = databaseBlocker({
      relation,
      archiveVersion,
      liveVersion: live.version,
      appVersion: contents.manifest.appVersion,
      fresh,
      upgradeError,
      archiveKeyCheck,
      liveKeyCheck: live.keyCheck,
      archiveDisks: recordedDisks,
      liveDisks: live.disks,
    });

    const fsp = deps.fs ?? nodeFs;
    const liveFiles = await listLiveFiles(deps.paths, fsp);
    const envStacks = secrets.secrets ? stacksWithEnv(secrets.secrets) : [];
    const kinds = await inspectPaths(deps.paths, pathsToInspect(contents.files, liveFiles, envStacks), fsp);
    const files = decideFiles({ archive: contents.files, live: liveFiles, kinds, stacksWithEnv: envStacks });

    const blockers: Blocker[] = [];
    if (dbBlocker) blockers.push(dbBlocker);
    if (files.unsafe) blockers.push({ code: 'restore_path_unsafe', message: unsafeMessage(files.unsafe) });

    let changes: Map<Category, Changes> | null = null;
    if (relation === 'equal') {
      const archiveRows = readArchivePart(() => readComparedRows(archiveDb));
      changes = compareDatabases(archiveRows, live.rows) as Map<Category, Changes>;
      for (const [category, c] of files.changes) changes.set(category, c);
    }

    let bareMetal: BareMetal | undefined;
    if (fresh && relation !== 'newer') {
      const inventory = await (deps.inventory as InventoryReader).read();
      bareMetal = matchDisks(recordedDisks, inventory, relation === 'older');
    }

    const response = assemblePreview({
      manifest: contents.manifest,
      archiveVersion,
      liveVersion: live.version,
      blockers,
      changes,
      secrets: secrets.report,
      notes: notesFor({ fresh, bareMetal }),
      bareMetal,
    });
    // Step 9: the held secrets error comes after invalid_archive and 500s.
    if (secrets.error) throw secrets.error;
    return { response, fresh, secrets, upgradedDbPath };
  } finally {
    archiveDb.close();
  }
}

/** Reads a part of the archive's database; a failure is the archive's fault (invalid_archive). */
function readArchivePart<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalidArchive("state.db's tables cannot be read", 'state.db');
  }
}

function readFrom<T>(file: string, read: (db: Database.Database) => T): T {
  const db = openArchiveDatabase(file);
  try {
    return readArchivePart(() => read(db));
  } finally {
    db.close();
  }
}

/** Step 5: everything the preview reads from the live database, in one read transaction. */
function readLive(deps: PreviewDeps): LiveState {
  const read = deps.db.transaction(() => {
    const disks = readArrayDisks(deps.db);
    return {
      version: readSchemaVersion(deps.db, deps.migrations),
      fresh: disks.length === 0,
      rows: readComparedRows(deps.db),
      disks,
      keyCheck: readKeyCheck(deps.db),
      sealedPassphrase: readSettings(deps.db)?.backupPassphrase ?? null,
    };
  });
  return read.deferred();
}

async function resolveArchiveSecrets(
  deps: PreviewDeps,
  contents: ArchiveContents,
  sent: string | undefined,
  live: LiveState,
  archiveKeyCheck: string | null,
): Promise<SecretsResolution> {
  const hasSecrets = contents.secretsAge !== null;
  const hasIdentity = contents.identityAge !== null;
  let configured: string | null = null;
  if (sent === undefined && (hasSecrets || hasIdentity) && live.sealedPassphrase !== null) {
    // A failure to unseal the configured passphrase is a 500 (§4.8 step 3).
    configured = deps.sealer.unseal(live.sealedPassphrase).toString('utf8');
  }
  const choice = choosePassphrase(sent, configured);
  let secretsOutcome: OpenOutcome<SecretsPayload> | undefined;
  let identityOutcome: OpenOutcome<Buffer> | undefined;
  if (mustOpen(hasSecrets, hasIdentity, choice)) {
    if (contents.secretsAge)
      secretsOutcome = await openAgeFile(contents.secretsAge, choice.passphrase, parseSecrets);
    if (contents.identityAge) {
      identityOutcome = await openAgeFile(contents.identityAge, choice.passphrase, (plain) => {
        const key = parseIdentity(plain);
        if (key === null || archiveKeyCheck === null) return null;
        return deps.keyCheck(key) === archiveKeyCheck ? key : null;
      });
    }
  }
  return resolveSecrets({
    hasSecrets,
    hasIdentity,
    choice,
    ...(secretsOutcome ? { secrets: secretsOutcome } : {}),
    ...(identityOutcome ? { identity: identityOutcome } : {}),
    archiveStacks: archiveStackNames(contents.files),
  });
}

/**
 * The route's whole job in one call: Content-Length, multipart streaming into a private temp
 * directory, the analysis, and removal of the temp directory on every path (client disconnect
 * included).
 */
export async function previewUpload(
  deps: PreviewDeps,
  headers: import('node:http').IncomingHttpHeaders,
  body: Readable,
): Promise<PreviewResponse> {
  checkContentLength(headers);
  assertPreviewWired(deps);
  const tmp = await makePrivateTempDir(deps.paths, 'preview');
  try {
    const upload = await receiveUpload(headers, body, (archive) => readArchive(archive, { tempDir: tmp }));
    return (await analyzeArchive(deps, upload.result, upload.passphrase, tmp)).response;
  } finally {
    await removeTempDir(tmp);
  }
}
