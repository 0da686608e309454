/**
 * The archive writer (01 §1.1): a ustar stream (pax headers where a name needs one, encoded by the
 * `tar` package's Header and Pax) of regular-file entries, mode 0600, uid/gid 0, mtime =
 * `createdAt`, hashed as they stream, with `manifest.json` last; compressed with node:zlib zstd
 * at level 3 with the frame checksum on and a window ≤ 16 MiB.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as Zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { onFirstUse, zlib } from '@appliance/common';
import type * as Tar from 'tar';
import { renderManifest } from '../core/manifest.ts';

export type ArchiveEntry =
  | { name: string; bytes: Uint8Array }
  /** A file streamed from an open handle: exactly `size` bytes (from its fstat) are sent. */
  | { name: string; open(): Promise<{ handle: FileHandle; size: number }> };

export interface ArchiveMeta {
  createdAt: string;
  hostname: string;
  appVersion: string;
}

/** `tar` is loaded on the first archive written, not at the service's start (docs/decisions/performance.md). */
const tar = onFirstUse(() => createRequire(import.meta.url)('tar') as typeof Tar);

const BLOCK = 512;
const CHUNK = 1024 * 1024;

function header(name: string, size: number, mtime: Date): Buffer[] {
  const { Header, Pax } = tar();
  const h = new Header({
    path: name,
    mode: 0o600,
    uid: 0,
    gid: 0,
    size,
    mtime,
    type: 'File',
    uname: '',
    gname: '',
  });
  const needPax = h.encode();
  const out: Buffer[] = [];
  if (needPax) out.push(new Pax({ path: name, size, mtime }).encode());
  if (!h.block) throw new Error(`cannot encode a tar header for ${name}`);
  out.push(h.block);
  return out;
}

const padding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The uncompressed tar stream: each entry in order, then `manifest.json`, then the end marker. */
export async function* tarStream(
  entries: AsyncIterable<ArchiveEntry> | Iterable<ArchiveEntry>,
  meta: ArchiveMeta,
): AsyncGenerator<Buffer> {
  const mtime = new Date(meta.createdAt);
  const checksums = new Map<string, string>();
  for await (const entry of entries) {
    const hash = createHash('sha256');
    if ('bytes' in entry) {
      const bytes = Buffer.from(entry.bytes);
      yield* header(entry.name, bytes.length, mtime);
      hash.update(bytes);
      yield bytes;
      yield padding(bytes.length);
    } else {
      const { handle, size } = await entry.open();
      try {
        yield* header(entry.name, size, mtime);
        let sent = 0;
        while (sent < size) {
          const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - sent));
          const { bytesRead } = await handle.read(buf, 0, buf.length, sent);
          if (bytesRead === 0) throw new Error(`${entry.name} shrank while it was being archived`);
          const chunk = buf.subarray(0, bytesRead);
          hash.update(chunk);
          sent += bytesRead;
          yield chunk;
        }
        yield padding(size);
      } finally {
        await handle.close();
      }
    }
    checksums.set(entry.name, hash.digest('hex'));
  }
  const manifest = Buffer.from(renderManifest({ ...meta, checksums }), 'utf8');
  yield* header('manifest.json', manifest.length, mtime);
  yield manifest;
  yield padding(manifest.length);
  yield Buffer.alloc(2 * BLOCK);
}

export function zstdCompressor(): Zlib.ZstdCompress {
  return zlib().createZstdCompress({
    params: {
      [zlib().constants.ZSTD_c_compressionLevel]: 3,
      [zlib().constants.ZSTD_c_checksumFlag]: 1,
      [zlib().constants.ZSTD_c_windowLog]: 21,
    },
  });
}

/**
 * The compressed archive as a stream. A failure part-way destroys the stream with the error (the
 * HTTP layer then aborts the connection; the manifest, last, never arrives). `onEnd` runs once,
 * after success or failure.
 */
export function archiveStream(
  entries: AsyncIterable<ArchiveEntry> | Iterable<ArchiveEntry>,
  meta: ArchiveMeta,
  onEnd?: (err: unknown) => void | Promise<void>,
): Readable {
  const z = zstdCompressor();
  pipeline(Readable.from(tarStream(entries, meta), { objectMode: false }), z).then(
    () => onEnd?.(null),
    (err: unknown) => {
      z.destroy(err as Error);
      return onEnd?.(err);
    },
  );
  return z;
}
