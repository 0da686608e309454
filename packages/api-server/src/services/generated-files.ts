/**
 * The record of generated files (@appliance/common `GeneratedFileRecord`: what the service last
 * wrote to smb.conf, snapraid.conf, mount units and stack compose files, for the drift watcher)
 * over the `generated_files` table. Every place that writes such a file calls `record` right after
 * writing it (see FEATURES.md).
 */
import { type Clock, GeneratedFileRecord, type GeneratedFilesStore, type HostPaths } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/open.ts';
import { generatedFiles } from '../db/schema.ts';
import type { WriteQueue } from '../db/write-queue.ts';
import type { Logger } from '../logger.ts';

/** What the record of generated files reads and writes through (a part of the server's context). */
export interface GeneratedFilesDeps {
  db: Db;
  paths: HostPaths;
  clock: Clock;
  writes: WriteQueue;
  logger: Logger;
}

/** The `generated_files` rows as the record's store: read directly, written through the write queue. */
const generatedFilesStore = (ctx: GeneratedFilesDeps): GeneratedFilesStore => ({
  all: () => ctx.db.select().from(generatedFiles).all(),
  upsert: (row) =>
    ctx.writes.run((db) => {
      db.insert(generatedFiles)
        .values(row)
        .onConflictDoUpdate({
          target: generatedFiles.path,
          set: { sha256: row.sha256, content: row.content, writtenAt: row.writtenAt },
        })
        .run();
    }),
  remove: (path) =>
    ctx.writes.run((db) => {
      db.delete(generatedFiles).where(eq(generatedFiles.path, path)).run();
    }),
});

export class GeneratedFiles extends GeneratedFileRecord {
  constructor(ctx: GeneratedFilesDeps) {
    super({ store: generatedFilesStore(ctx), paths: ctx.paths, clock: ctx.clock, log: ctx.logger });
  }
}
