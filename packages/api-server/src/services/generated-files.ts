/**
 * What the service last wrote to each file it generates (smb.conf, snapraid.conf, mount units,
 * stack compose files), so the drift watcher can tell a change made by someone else. Every place
 * that writes such a file calls `record` right after writing it (see FEATURES.md).
 *
 * The table is the durable copy; an in-memory copy answers the drift watcher, so a record is
 * effective at once even while its write job waits for the next group commit.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { generatedFiles } from '../db/schema.ts';

/** Content kept for the diff summary up to this size (generated files are a few KiB). */
export const MAX_KEPT_CONTENT = 256 * 1024;

export interface GeneratedFile {
  /** Logical path, or the real one when it lies outside the root prefix (systemd units in a sandbox never do). */
  path: string;
  /** Real path on this machine. */
  real: string;
  sha256: string;
  content: string | null;
  writtenAt: string;
}

export const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

export class GeneratedFiles {
  private readonly ctx: AppContext;
  private files: Map<string, GeneratedFile> | null = null;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  private load(): Map<string, GeneratedFile> {
    if (this.files) return this.files;
    this.files = new Map();
    for (const r of this.ctx.db.select().from(generatedFiles).all())
      this.files.set(r.path, { ...r, real: this.real(r.path) });
    return this.files;
  }

  private real(stored: string): string {
    const { paths } = this.ctx;
    // Stored logical paths are under the root prefix; a real path outside it is stored as it is.
    const asLogical = paths.logical(stored);
    return paths.root !== '' && asLogical === null ? paths.real(stored) : stored;
  }

  private stored(real: string): string {
    return this.ctx.paths.logical(real) ?? real;
  }

  /** Every recorded file. */
  list(): GeneratedFile[] {
    return [...this.load().values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Records what the service just wrote to `real` (the text when given, else the file as it is on
   * disk now). A missing file is forgotten instead.
   */
  async record(real: string, written?: string | Uint8Array): Promise<void> {
    let data: string | Uint8Array;
    if (written !== undefined) data = written;
    else {
      try {
        data = await fs.readFile(real);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.forget(real);
        throw err;
      }
    }
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    const text = bytes.length <= MAX_KEPT_CONTENT ? bytes.toString('utf8') : null;
    const entry: GeneratedFile = {
      path: this.stored(real),
      real,
      sha256: sha256(bytes),
      content: text !== null && !text.includes('\u0000') && !text.includes('\uFFFD') ? text : null,
      writtenAt: this.ctx.clock.now().toISOString(),
    };
    const files = this.load();
    const before = files.get(entry.path);
    if (before?.sha256 === entry.sha256) return;
    files.set(entry.path, entry);
    const { real: _real, ...row } = entry;
    await this.ctx.writes.run((db) =>
      db
        .insert(generatedFiles)
        .values(row)
        .onConflictDoUpdate({
          target: generatedFiles.path,
          set: { sha256: row.sha256, content: row.content, writtenAt: row.writtenAt },
        })
        .run(),
    );
  }

  /** The service removed a generated file (a stack deleted): nothing to watch any more. */
  async forget(real: string): Promise<void> {
    const key = this.stored(real);
    const files = this.load();
    if (!files.delete(key)) return;
    await this.ctx.writes.run((db) => db.delete(generatedFiles).where(eq(generatedFiles.path, key)).run());
  }

  /** Every recorded file under a real directory (a stack folder), forgotten. */
  async forgetUnder(realDir: string): Promise<void> {
    for (const f of this.list()) if (f.real.startsWith(`${realDir}/`)) await this.forget(f.real);
  }
}
