/**
 * What the service last wrote to each file it generates (smb.conf, snapraid.conf, mount units,
 * stack compose files), so the drift watcher can tell a change made by someone else. Every place
 * that writes such a file calls `record` right after writing it.
 *
 * The store (a port: the server's is the `generated_files` table) is the durable copy; an
 * in-memory copy answers the drift watcher, so a record is effective at once even while its
 * store write waits (the server's group commit).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from './clock.ts';
import type { HostPaths } from './host-paths.ts';

/** Content kept for the diff summary up to this size (generated files are a few KiB). */
export const MAX_KEPT_CONTENT = 256 * 1024;

/** One record as stored: the stored path (see `GeneratedFile.path`), its hash, its text, when. */
export interface GeneratedFileRow {
  path: string;
  sha256: string;
  content: string | null;
  writtenAt: string;
}

export interface GeneratedFile extends GeneratedFileRow {
  /** Real path on this machine (`path` is the logical one, or the real one when it lies outside the root prefix). */
  real: string;
}

/** Where the records last (the server's `generated_files` rows). */
export interface GeneratedFilesStore {
  /** Every stored record (read once, at the first use). */
  all(): GeneratedFileRow[];
  /** Inserts or replaces the record of `row.path`; settles once durable. */
  upsert(row: GeneratedFileRow): Promise<void>;
  remove(path: string): Promise<void>;
}

export interface GeneratedFilesDeps {
  store: GeneratedFilesStore;
  paths: HostPaths;
  clock: Clock;
  log: { error(message: string, fields?: Record<string, unknown>): void };
}

export const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

export class GeneratedFileRecord {
  private readonly deps: GeneratedFilesDeps;
  private files: Map<string, GeneratedFile> | null = null;

  constructor(deps: GeneratedFilesDeps) {
    this.deps = deps;
  }

  private load(): Map<string, GeneratedFile> {
    if (this.files) return this.files;
    this.files = new Map();
    for (const r of this.deps.store.all()) this.files.set(r.path, { ...r, real: this.real(r.path) });
    return this.files;
  }

  private real(stored: string): string {
    const { paths } = this.deps;
    // Stored logical paths are under the root prefix; a real path outside it is stored as it is.
    const asLogical = paths.logical(stored);
    return paths.root !== '' && asLogical === null ? paths.real(stored) : stored;
  }

  private stored(real: string): string {
    return this.deps.paths.logical(real) ?? real;
  }

  /** Every recorded file. */
  list(): GeneratedFile[] {
    return [...this.load().values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Records what the service just wrote to `real` (the text when given, else the file as it is on
   * disk now, read at once). The record is in force when this returns; the promise settles once it
   * is durable (callers on a hot path need not wait: a crash before the commit leaves the previous
   * record, and every writer records again on its next write). A missing file is forgotten instead.
   */
  record(real: string, written?: string | Uint8Array): Promise<void> {
    let bytes: Buffer;
    if (written !== undefined) bytes = Buffer.from(written);
    else {
      try {
        // Synchronous on purpose: a generated file is a few KiB, and the record must be in force
        // before anything else runs (the drift watcher must never see the new file with the old record).
        bytes = fs.readFileSync(real);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.forget(real);
        return Promise.reject(err);
      }
    }
    const text = bytes.length <= MAX_KEPT_CONTENT ? bytes.toString('utf8') : null;
    const entry: GeneratedFile = {
      path: this.stored(real),
      real,
      sha256: sha256(bytes),
      content: text !== null && !text.includes('\u0000') && !text.includes('\uFFFD') ? text : null,
      writtenAt: this.deps.clock.now().toISOString(),
    };
    const files = this.load();
    if (files.get(entry.path)?.sha256 === entry.sha256) return Promise.resolve();
    files.set(entry.path, entry);
    const { real: _real, ...row } = entry;
    return this.deps.store.upsert(row);
  }

  /** `record` for callers that do not wait: a failure to persist is logged. */
  recordQuietly(real: string, written?: string | Uint8Array): void {
    this.record(real, written).catch((err: unknown) =>
      this.deps.log.error('recording a generated file failed', { file: real, error: String(err) }),
    );
  }

  /** The service removed a generated file (a stack deleted): nothing to watch any more. */
  forget(real: string): Promise<void> {
    const key = this.stored(real);
    const files = this.load();
    if (!files.delete(key)) return Promise.resolve();
    return this.deps.store.remove(key);
  }

  /**
   * After a config import swapped in smb.conf and the stacks (08 §14): what is on disk now is what
   * the service wrote. Stack compose files that are gone are forgotten.
   */
  recordAfterImport(): void {
    const { paths } = this.deps;
    this.recordQuietly(paths.sambaConf);
    for (const f of this.list())
      if (f.real.startsWith(`${paths.stacksDir}/`) && !fs.existsSync(f.real))
        this.forget(f.real).catch(() => undefined);
    let names: string[] = [];
    try {
      names = fs.readdirSync(paths.stacksDir);
    } catch {
      names = [];
    }
    for (const name of names) {
      const compose = path.join(paths.stacksDir, name, 'docker-compose.yml');
      const st = fs.lstatSync(compose, { throwIfNoEntry: false });
      if (st?.isFile()) this.recordQuietly(compose);
    }
  }

  /** Every recorded file under a real directory (a stack folder), forgotten. */
  async forgetUnder(realDir: string): Promise<void> {
    for (const f of this.list()) if (f.real.startsWith(`${realDir}/`)) await this.forget(f.real);
  }
}
