/**
 * The configuration archive port (`ConfigArchive`) over a stream that makes the archive (the
 * export's own code): written to the file a run names, mode 0600, never over an existing file.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ConfigArchive } from '../ports.ts';

/** An archive in the making: its bytes, and its end (rejects when the export failed). */
export interface ArchiveStream {
  stream: Readable;
  done: Promise<unknown>;
}

/** Writes the archive `open` starts to `file` (mode 0600, `wx`); answers its size. */
export const archiveFileWriter = (open: () => Promise<ArchiveStream>): ConfigArchive => ({
  async write(file: string): Promise<{ bytes: number }> {
    const result = await open();
    await pipeline(result.stream, fs.createWriteStream(file, { mode: 0o600, flags: 'wx' }));
    await result.done;
    return { bytes: (await fsp.stat(file)).size };
  },
});
