/**
 * The config import (08 §14): the preview's reading and analysis of the same upload (one code
 * path decides both), the import's refusals in the contract's order, then the steps under the
 * import lock. Host specifics come in as adapters: the lock, smb.conf rendering and validation,
 * mounting, the audit row.
 *
 * Order of the steps (names as `details.step`): `pre_import_archive` (an export to
 * `/var/lib/appliance/backups`), `prepare_database` (the archive's database, upgraded when older,
 * edited by the plan), `swap_files` (journaled, see import-swap.ts), `regenerate_samba` (rendered
 * from the prepared database, validated by testparm, swapped like the other files),
 * `mount_disks` (fresh install), `commit` (the rows, the audit row and the commit marker in one
 * transaction). Everything before the commit is undone on a failure and, after a crash, by the
 * startup sweep; the commit is the point of no return.
 */
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { HostPaths } from '@appliance/common';
import Database from 'better-sqlite3';
import type { DiskMappingEntry } from '../core/bare-metal.ts';
import {
  databasePlan,
  type FileOp,
  filesPlan,
  type ImportStep,
  importFailed,
  importRefusal,
  importSteps,
  type MountOp,
  mountsPlan,
} from '../core/import-plan.ts';
import { isStackName } from '../core/limits.ts';
import type { Note } from '../core/notes.ts';
import type { SecretsReport } from '../core/secrets.ts';
import { type ArchiveContents, readArchive } from './archive-reader.ts';
import { writeConfigArchive } from './config-archive-file.ts';
import type { ExportDeps } from './export.ts';
import { commitDatabase, liveTables, prepareDatabase, type SealWith, withReadOnlyDb } from './import-db.ts';
import { importBusy, parseDiskMapping, type RunningJob } from './import-input.ts';
import { FileSwap, writeDurable } from './import-swap.ts';
import { listLiveFiles, nodeFs } from './live-files.ts';
import { analyzeArchive, assertPreviewWired, type PreviewDeps } from './preview.ts';
import { readKeyCheck } from './sqlite.ts';
import { makePrivateTempDir, removeTempDir } from './temp-dir.ts';
import { checkContentLength, receiveUpload } from './upload.ts';

export interface ImportResponse {
  /** Logical path of the pre-import archive. */
  preImportArchive: string;
  schemaUpgrade: boolean;
  secrets: SecretsReport;
  notes: Note[];
}

export interface Mounter {
  /** Mounts the recorded slot's filesystem (by UUID) at `realMountpoint`, and checks it. */
  mount(op: MountOp, realMountpoint: string): Promise<void>;
  unmount(realMountpoint: string): Promise<void>;
}

export interface ImportDeps extends PreviewDeps {
  /** The live machine key's sealer: unseals the configured passphrase, seals re-sealed values. */
  sealer: PreviewDeps['sealer'] & SealWith;
  /** What the pre-import archive is made with (the same export as `POST /config/export`). */
  exportDeps: ExportDeps;
  /**
   * The import lock: a release function, or null when another write or long operation runs
   * (`409 operations_running`). While held, every other write answers `409 import_in_progress`.
   */
  tryLock(): (() => void) | null;
  /** When `tryLock` fails: the first job running now (the refusal names it), or null. */
  runningJob?(): RunningJob | null;
  /**
   * smb.conf as the server renders it, from the prepared database: a read-only connection to it,
   * opened for the call and closed after it.
   */
  renderSmbConf(preparedDb: Database.Database): string | Promise<string>;
  /** testparm on a candidate smb.conf; throws when it is refused. */
  validateSmbConf(candidate: string): Promise<void>;
  mounter: Mounter;
  /**
   * Writes the `config.import` audit row on the live connection, inside the commit transaction;
   * `target` is the archive's hostname.
   */
  auditRow(db: Database.Database, details: Record<string, unknown>, target: string): void;
  /** Each step as it starts (`hostname` is the archive's). */
  onStep?(progress: { step: ImportStep; index: number; total: number; hostname: string }): void;
  /** Fault injection for tests: runs before each step; a throw fails that step. */
  beforeStep?(step: ImportStep): void | Promise<void>;
  /** After the commit: the machine key the box runs with from now on when it was adopted. */
  onCommitted?(result: { adoptedKey: Buffer | null }): void | Promise<void>;
  log?(message: string, fields?: Record<string, unknown>): void;
}

/** The whole import of one multipart upload (raw Node request). */
export async function importUpload(
  deps: ImportDeps,
  headers: IncomingHttpHeaders,
  body: Readable,
): Promise<ImportResponse> {
  checkContentLength(headers);
  assertPreviewWired(deps);
  const tmp = await makePrivateTempDir(deps.paths, 'import');
  let release: (() => void) | null = null;
  try {
    const extracted = path.join(tmp, 'archive');
    const upload = await receiveUpload(
      headers,
      body,
      (archive) => readArchive(archive, { tempDir: tmp, extractTo: extracted }),
      { fields: ['confirmation', 'diskMapping'] },
    );
    const diskMapping = parseDiskMapping(upload.fields['diskMapping']);
    // Taken before the analysis when free, so the live state it reads cannot change before the
    // steps; `operations_running` is still answered only after every other refusal.
    release = deps.tryLock();
    const analysis = await analyzeArchive(deps, upload.result, upload.passphrase, tmp);
    const refusal = importRefusal({
      preview: analysis.response,
      fresh: analysis.fresh,
      // missing, empty or wrong: 409 confirmation_required naming the phrase, after the blockers
      confirmation: upload.fields['confirmation'] ?? null,
      diskMapping,
    });
    if (refusal) throw refusal;
    if (!release) throw importBusy(deps.runningJob?.() ?? null);
    return await runSteps(deps, {
      contents: upload.result,
      extracted,
      analysis,
      passphrase: analysis.secrets.passphrase,
      diskMapping: diskMapping ?? [],
    });
  } finally {
    release?.();
    await removeTempDir(tmp);
  }
}

interface StepInput {
  contents: ArchiveContents;
  extracted: string;
  analysis: Awaited<ReturnType<typeof analyzeArchive>>;
  passphrase: string;
  diskMapping: DiskMappingEntry[];
}

async function runSteps(deps: ImportDeps, input: StepInput): Promise<ImportResponse> {
  const { analysis } = input;
  const { response, fresh, secrets } = analysis;
  const mounts = fresh ? mountsPlan(response.bareMetal, input.diskMapping) : [];
  const steps = importSteps({ fresh, mappedDisks: mounts.length });
  const total = steps.length;
  let index = 0;
  const enter = async (step: ImportStep) => {
    index += 1;
    deps.onStep?.({ step, index, total, hostname: response.archive.hostname });
    await deps.beforeStep?.(step);
  };

  // 1. The pre-import archive: a failure changes nothing.
  let preImportArchive: string;
  const backupsExisted = fs.existsSync(deps.paths.backupsDir);
  const dropPreImport = (file: string | null) => {
    if (file) fs.rmSync(deps.paths.real(file), { force: true });
    if (!backupsExisted) fs.rmSync(deps.paths.backupsDir, { recursive: true, force: true });
  };
  try {
    await enter('pre_import_archive');
    preImportArchive = await writePreImportArchive(deps);
  } catch (err) {
    dropPreImport(null);
    deps.log?.('config import failed', { step: 'pre_import_archive', error: describe(err) });
    throw importFailed('pre_import_archive');
  }

  const swap = new FileSwap(deps.paths);
  let step: ImportStep = 'prepare_database';
  try {
    // 2. The new database, prepared beside the live one.
    await enter('prepare_database');
    await swap.prepare();
    const prepared = path.join(swap.dirs.state, 'new.db');
    const archiveKeyCheck = keyCheckOf(input.contents.stateDbPath);
    const plan = databasePlan({
      liveTables: liveTables(deps.db),
      fresh,
      identityOpened: secrets.report.identity === 'opened' && secrets.machineKey !== null,
      secretsOpened: secrets.report.status === 'opened',
      archiveKeyCheck,
      liveKeyCheck: readKeyCheck(deps.db) ?? '',
      diskMapping: input.diskMapping,
    });
    prepareDatabase({
      source: analysis.upgradedDbPath ?? input.contents.stateDbPath,
      target: prepared,
      plan,
      live: deps.db,
      sealer: deps.sealer,
      secrets: secrets.secrets,
      passphrase: input.passphrase,
    });

    // 3. The files (and the adopted machine key).
    step = 'swap_files';
    await enter('swap_files');
    const items = await stageFiles(
      deps,
      swap,
      input,
      plan.machineKey === 'adopt' ? secrets.machineKey : null,
    );
    await swap.swap(deps.paths, items);

    // 4. smb.conf from the prepared database, validated, swapped like the other files.
    step = 'regenerate_samba';
    await enter('regenerate_samba');
    const candidate = swap.stagedPath(deps.paths.sambaConf, deps.paths, 'smb.conf');
    await writeDurable(candidate, await withReadOnlyDb(prepared, (db) => deps.renderSmbConf(db)), 0o644);
    await deps.validateSmbConf(candidate);
    await swap.swap(deps.paths, [{ target: deps.paths.sambaConf, staged: candidate }]);

    // 5. Fresh install: the mapped disks at the mountpoints the archive records.
    if (steps.includes('mount_disks')) {
      step = 'mount_disks';
      await enter('mount_disks');
      for (const m of mounts) {
        const real = deps.paths.real(m.mountpoint);
        await swap.recordMount(real);
        await deps.mounter.mount(m, real);
      }
    }

    // 6. The point of no return: rows, audit row and commit marker in one transaction.
    step = 'commit';
    await enter('commit');
    commitDatabase({
      live: deps.db,
      prepared,
      plan,
      nonce: swap.journal.nonce,
      inTransaction: (db) =>
        deps.auditRow(
          db,
          {
            archive: response.archive,
            preImportArchive,
            schemaUpgrade: response.archive.schemaVersion !== response.liveSchemaVersion,
            secrets: secrets.report.status,
            identity: secrets.report.identity,
            mounted: mounts.map((m) => m.mountpoint),
          },
          response.archive.hostname,
        ),
    });
  } catch (err) {
    deps.log?.('config import failed; putting everything back', { step, error: describe(err) });
    try {
      await swap.rollback((real) => deps.mounter.unmount(real));
    } catch (rollbackErr) {
      // The journal stays: the startup sweep finishes the rollback.
      deps.log?.('config import rollback failed; the startup sweep will finish it', {
        error: describe(rollbackErr),
      });
    }
    // The box is exactly as before: the pre-import archive of this failed import goes too.
    dropPreImport(preImportArchive);
    throw importFailed(step);
  }
  try {
    swap.finish();
  } catch (err) {
    deps.log?.('config import: removing the previous files failed (the startup sweep retries)', {
      error: describe(err),
    });
  }
  await deps.onCommitted?.({
    adoptedKey:
      secrets.machineKey !== null && fresh && secrets.report.identity === 'opened'
        ? secrets.machineKey
        : null,
  });
  return {
    preImportArchive,
    schemaUpgrade: response.archive.schemaVersion !== response.liveSchemaVersion,
    secrets: response.secrets,
    notes: response.notes,
  };
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The archive's `machine_key_check` (its database was verified by the reader, rule 12). */
function keyCheckOf(stateDb: string): string | null {
  const db = new Database(stateDb, { readonly: true, fileMustExist: true });
  try {
    return readKeyCheck(db);
  } finally {
    db.close();
  }
}

/** Step 1: an export written to `/var/lib/appliance/backups/pre-import-<stamp>.tar.zst` (0600). */
function writePreImportArchive(deps: ImportDeps): Promise<string> {
  return writeConfigArchive(deps.paths, deps.exportDeps, 'pre-import');
}

/** Live stack directories (valid names, real directories) and whether each has a `.env`. */
function liveStacks(paths: HostPaths): { name: string; hasEnv: boolean }[] {
  let names: string[];
  try {
    names = fs.readdirSync(paths.stacksDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => isStackName(n) && fs.lstatSync(path.join(paths.stacksDir, n)).isDirectory())
    .map((name) => ({
      name,
      hasEnv: fs.lstatSync(path.join(paths.stacksDir, name, '.env'), { throwIfNoEntry: false }) !== undefined,
    }));
}

function rootDir(paths: HostPaths, op: FileOp): string {
  return op.root === 'etc' ? paths.etcDir : op.root === 'catalog' ? paths.catalogDir : paths.stacksDir;
}

/** Sets directories to 0755 and files to 0644 below `dir` (an extracted tree is 0700/0600). */
function publishModes(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) publishModes(p);
    else fs.chmodSync(p, 0o644);
  }
}

/** Stages every `put` of the files plan on the target's filesystem; returns the swap items. */
async function stageFiles(
  deps: ImportDeps,
  swap: FileSwap,
  input: StepInput,
  adoptedKey: Buffer | null,
): Promise<{ target: string; staged: string | null }[]> {
  const paths = deps.paths;
  const live = await listLiveFiles(paths, deps.fs ?? nodeFs, false);
  const stacks = liveStacks(paths);
  const secrets = input.analysis.secrets.secrets;
  const ops = filesPlan({ archive: input.contents.files, live, liveStacks: stacks, secrets });
  const items: { target: string; staged: string | null }[] = [];
  for (const [i, op] of ops.entries()) {
    const target = op.rel === '' ? rootDir(paths, op) : path.join(rootDir(paths, op), op.rel);
    if (op.action === 'remove') {
      items.push({ target, staged: null });
      continue;
    }
    const staged = swap.stagedPath(target, paths, String(i));
    const source = op.source!;
    if (source.kind === 'catalog') {
      const tree = path.join(input.extracted, 'templates');
      if (fs.existsSync(tree)) fs.renameSync(tree, staged);
      else fs.mkdirSync(staged);
      publishModes(staged);
    } else if (source.kind === 'archive') {
      await writeDurable(staged, fs.readFileSync(path.join(input.extracted, source.name)), op.mode);
    } else {
      const env = secrets?.stacks.find((s) => s.name === source.stack)?.env ?? '';
      await writeDurable(staged, Buffer.from(env, 'base64'), 0o600);
    }
    items.push({ target, staged });
  }
  // Stacks the archive does not have: their directories go once empty (after the commit).
  const archived = new Set(
    [...input.contents.files.keys()].filter((n) => n.startsWith('stacks/')).map((n) => n.split('/')[1]),
  );
  for (const s of stacks) {
    if (!archived.has(s.name)) swap.journal.emptyStackDirs.push(path.join(paths.stacksDir, s.name));
  }
  if (adoptedKey) {
    const staged = swap.stagedPath(paths.machineKey, paths, 'secret.key');
    await writeDurable(staged, adoptedKey, 0o600);
    items.push({ target: paths.machineKey, staged });
  }
  return items;
}
