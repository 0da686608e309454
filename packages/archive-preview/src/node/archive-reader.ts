/**
 * The streaming reader of a config archive (01 §3): counted, decompressed by node:zlib zstd
 * (windowLogMax 24) frame after frame (every byte belongs to a frame), parsed by the `tar` package's streaming Parser (never its extractor), each
 * entry checked as its header arrives. Only `state.db` is written (into the caller's private temp
 * directory); `manifest.json` and the `.age` files stay in memory; every other entry is hashed
 * and discarded. With `extractTo`, every regular file is also written below that directory (the
 * import's mode).
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import { AppError, onFirstUse, zlib } from '@appliance/common';
import type * as Tar from 'tar';
import type { Parser, ReadEntry } from 'tar';
import { checkEntryName, checkTopLevel, EntryNames, type EntryKind } from '../core/entry-rules.ts';
import { archiveTooLarge, invalidArchive } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { type Manifest, parseManifest, verifyChecksums } from '../core/manifest.ts';
import { headerHidesNul, markNulNames, metaHidesNul } from './tar-names.ts';
import { decodeZstdFrames } from './zstd-frames.ts';

export interface ArchiveContents {
  manifest: Manifest;
  /** Every regular file except `manifest.json` → SHA-256 (lowercase hex). */
  files: Map<string, string>;
  /** Directory entries (names without the trailing `/`). */
  directories: string[];
  /** Where `state.db` was written (it exists: rules 10–11 passed and rule 12's first part is checked). */
  stateDbPath: string;
  secretsAge: Buffer | null;
  identityAge: Buffer | null;
  /** Bytes of the compressed `archive` part. */
  compressedBytes: number;
}

export interface ReadArchiveOptions {
  /** Private directory (0700) where `state.db` is written. */
  tempDir: string;
  /** Also write every regular file to `<extractTo>/<name>` (the import). */
  extractTo?: string;
  signal?: AbortSignal;
}

/** `tar` is loaded on the first archive read, not at the service's start (docs/decisions/performance.md). */
const tar = onFirstUse(() => {
  const t = createRequire(import.meta.url)('tar') as typeof Tar;
  markNulNames(t.Header);
  return t;
});

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const IN_MEMORY = new Set(['manifest.json', 'secrets.age', 'identity.age']);
const GZIP_MAGIC = [0x1f, 0x8b];

/** Reads and verifies an archive stream (rules 1–11, and that `state.db` exists). */
export async function readArchive(
  source: Readable | AsyncIterable<Uint8Array>,
  options: ReadArchiveOptions,
): Promise<ArchiveContents> {
  let compressedBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      compressedBytes += chunk.length;
      if (compressedBytes > LIMITS.archiveBytes) cb(archiveTooLarge('the archive', LIMITS.archiveBytes));
      else cb(null, chunk);
    },
  });
  // Every byte must belong to a zstd frame: bytes after the last one are invalid zstd (zstd-frames.ts).
  const zstd = (compressed: AsyncIterable<Buffer>) =>
    decodeZstdFrames(compressed, () =>
      zlib().createZstdDecompress({
        chunkSize: 256 * 1024,
        params: { [zlib().constants.ZSTD_d_windowLogMax]: LIMITS.zstdWindowLogMax },
      }),
    );
  const sink = new TarSink(options);
  try {
    await pipeline(source, counter, zstd, sink, ...(options.signal ? [{ signal: options.signal }] : []));
  } catch (err) {
    await sink.closeFiles();
    throw sink.failure ?? mapStreamError(err);
  }
  return { ...sink.result(), compressedBytes };
}

function mapStreamError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === 'string' && (e.code.startsWith('ZSTD_') || e.code.startsWith('Z_'))) {
    const reason =
      e.code === 'ZSTD_error_frameParameter_windowTooLarge'
        ? 'a zstd frame needs a window larger than 16 MiB'
        : e.code === 'Z_BUF_ERROR'
          ? 'the file is truncated'
          : 'the file is not valid zstd';
    return invalidArchive(reason);
  }
  return err;
}

class TarSink extends Writable {
  failure: AppError | null = null;
  private readonly parser: Parser;
  private readonly names = new EntryNames();
  private readonly files = new Map<string, string>();
  private readonly directories: string[] = [];
  private readonly memory = new Map<string, Buffer>();
  private readonly pending: Promise<void>[] = [];
  private decompressed = 0;
  private declared = 0;
  private entries = 0;
  private sniffed = false;
  private sawEof = false;
  private ended = false;
  private current: string | undefined;
  private waiting: ((err?: Error | null) => void) | null = null;
  private readonly stateDbPath: string;

  private readonly options: ReadArchiveOptions;

  constructor(options: ReadArchiveOptions) {
    super();
    this.options = options;
    this.stateDbPath = path.join(options.tempDir, 'state.db');
    this.parser = new (tar().Parser)({
      strict: true,
      zstd: false,
      brotli: false,
      maxMetaEntrySize: 1024 * 1024,
    });
    this.parser.on('entry', (entry: ReadEntry) => this.onEntry(entry));
    this.parser.on('ignoredEntry', (entry: ReadEntry) => {
      this.fail(
        invalidArchive(`an entry has a type that is not allowed (${entry.type})`, safeName(entry.path)),
      );
    });
    this.parser.on('meta', (meta: string) => {
      if (metaHidesNul(meta)) {
        this.fail(invalidArchive('an entry name contains a NUL character'));
        return;
      }
      if (/(^|\n)\d+ GNU\.sparse\./.test(meta) || meta.includes('GNU.sparse.')) {
        this.fail(invalidArchive('the archive holds a sparse file'));
      }
    });
    this.parser.on('eof', () => {
      this.sawEof = true;
    });
    this.parser.on('error', (err: Error) => {
      const message = err.message.includes('Truncated')
        ? 'the tar stream is truncated'
        : 'the tar stream is not valid';
      this.fail(invalidArchive(message, this.current));
    });
    this.parser.on('end', () => {
      this.ended = true;
    });
  }

  private fail(err: AppError): void {
    if (this.failure) return;
    this.failure = err;
    const cb = this.waiting;
    this.waiting = null;
    cb?.(err);
    this.destroy(err);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.failure) {
      cb(this.failure);
      return;
    }
    this.decompressed += chunk.length;
    if (this.decompressed > LIMITS.decompressedBytes) {
      this.fail(archiveTooLarge('the decompressed archive', LIMITS.decompressedBytes));
      cb(this.failure);
      return;
    }
    if (!this.sniffed) {
      this.sniffed = true;
      // The tar parser would gunzip a gzip stream on its own: a tar inside zstd is never gzip.
      if (chunk.length >= 2 && chunk[0] === GZIP_MAGIC[0] && chunk[1] === GZIP_MAGIC[1]) {
        this.fail(invalidArchive('the compressed content is not a tar stream'));
        cb(this.failure);
        return;
      }
    }
    // After the end-of-archive marker the parser would only buffer: trailing bytes are counted
    // (rule 3) and dropped.
    if (this.sawEof) {
      cb();
      return;
    }
    const ok = this.writeAligned(chunk);
    if (this.failure) {
      cb(this.failure);
      return;
    }
    if (ok) {
      cb();
      return;
    }
    this.waiting = cb;
    this.parser.once('drain', () => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.(this.failure);
    });
  }

  private carry: Buffer = Buffer.alloc(0);

  /**
   * Feeds the parser in whole 512-byte blocks: zstd emits chunks of any length, and the parser
   * would otherwise copy every chunk to join it with the previous remainder. Only the ≤ 1 KiB
   * around a chunk boundary is copied here.
   */
  private writeAligned(chunk: Buffer): boolean {
    let rest = chunk;
    let ok = true;
    if (this.carry.length > 0) {
      const need = 512 - this.carry.length;
      if (rest.length < need) {
        this.carry = Buffer.concat([this.carry, rest]);
        return true;
      }
      ok = this.parser.write(Buffer.concat([this.carry, rest.subarray(0, need)])) && ok;
      rest = rest.subarray(need);
      this.carry = Buffer.alloc(0);
    }
    const aligned = rest.length - (rest.length % 512);
    if (aligned > 0 && !this.failure && !this.sawEof) ok = this.parser.write(rest.subarray(0, aligned)) && ok;
    if (aligned < rest.length) this.carry = Buffer.from(rest.subarray(aligned));
    return ok;
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.failure) {
      cb(this.failure);
      return;
    }
    if (this.carry.length > 0 && !this.sawEof) this.parser.write(this.carry);
    this.parser.end();
    const finish = async () => {
      if (!this.ended) await new Promise<void>((resolve) => this.parser.once('end', () => resolve()));
      await Promise.all(this.pending);
      if (this.failure) throw this.failure;
      if (!this.sawEof) throw invalidArchive('the tar stream is truncated (no end-of-archive marker)');
      this.verify();
    };
    finish().then(
      () => cb(),
      (err: unknown) => {
        if (err instanceof AppError) this.failure ??= err;
        cb(err as Error);
      },
    );
  }

  private manifest: Manifest | null = null;
  private readonly streams: fs.WriteStream[] = [];

  /** After a failure: closes every file this reader opened, so nothing is written afterwards. */
  async closeFiles(): Promise<void> {
    await Promise.all(
      this.streams.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.closed) return resolve();
            ws.once('close', () => resolve());
            ws.destroy();
          }),
      ),
    );
  }

  private verify(): void {
    const bytes = this.memory.get('manifest.json');
    if (!bytes) throw invalidArchive('manifest.json is missing', 'manifest.json');
    this.manifest = parseManifest(bytes);
    verifyChecksums(this.manifest, this.files);
    if (!this.files.has('state.db')) throw invalidArchive('state.db is missing', 'state.db');
  }

  result(): Omit<ArchiveContents, 'compressedBytes'> {
    if (!this.manifest) throw new Error('archive not verified');
    return {
      manifest: this.manifest,
      files: this.files,
      directories: this.directories,
      stateDbPath: this.stateDbPath,
      secretsAge: this.memory.get('secrets.age') ?? null,
      identityAge: this.memory.get('identity.age') ?? null,
    };
  }

  private onEntry(entry: ReadEntry): void {
    try {
      this.checkEntry(entry);
    } catch (err) {
      entry.resume();
      if (err instanceof AppError) this.fail(err);
      else this.fail(invalidArchive('an entry cannot be read', safeName(entry.path)));
    }
  }

  private checkEntry(entry: ReadEntry): void {
    this.entries += 1;
    if (this.entries > LIMITS.entries) {
      throw new AppError(
        413,
        'archive_too_large',
        `The archive has more than ${LIMITS.entries} entries. Upload an archive made by "Export configuration".`,
        { limitEntries: LIMITS.entries },
      );
    }
    let kind: EntryKind;
    if (FILE_TYPES.has(entry.type)) kind = 'file';
    else if (entry.type === 'Directory') kind = 'directory';
    else
      throw invalidArchive(
        `an entry is a ${describeType(entry.type)}; only regular files and directories are allowed`,
        safeName(entry.path),
      );
    if (headerHidesNul(entry.header)) {
      throw invalidArchive('an entry name contains a NUL character', safeName(entry.path));
    }
    const name = checkEntryName(entry.path, kind);
    this.current = name;
    this.names.add(name, kind);
    const size = kind === 'file' ? entry.size : 0;
    checkTopLevel(name, kind, size);
    if (kind === 'directory') {
      this.directories.push(name);
      entry.resume();
      return;
    }
    this.declared += size;
    if (this.declared > LIMITS.declaredBytes)
      throw archiveTooLarge('the files in the archive', LIMITS.declaredBytes);
    this.consumeFile(name, entry);
  }

  private consumeFile(name: string, entry: ReadEntry): void {
    const hash: Hash = createHash('sha256');
    const chunks: Buffer[] | null = IN_MEMORY.has(name) ? [] : null;
    const sinks: fs.WriteStream[] = [];
    if (name === 'state.db') sinks.push(fs.createWriteStream(this.stateDbPath, { flags: 'wx', mode: 0o600 }));
    if (this.options.extractTo) {
      const target = path.join(this.options.extractTo, name);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      sinks.push(fs.createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    }
    for (const ws of sinks) {
      this.streams.push(ws);
      const written = new Promise<void>((resolve, reject) => {
        ws.on('close', () => resolve());
        ws.on('error', (err) => reject(err));
      });
      written.catch(() => undefined);
      this.pending.push(written);
    }
    // One 'data' listener feeds the hash and every sink: the entry may hold buffered body bytes
    // when its 'entry' event fires (the parser queues entries), and the first listener or pipe
    // attached would take them all.
    let waiting = 0;
    entry.on('data', (c: Buffer) => {
      hash.update(c);
      chunks?.push(c);
      for (const ws of sinks) {
        if (!ws.write(c)) {
          waiting += 1;
          entry.pause();
          ws.once('drain', () => {
            waiting -= 1;
            if (waiting === 0) entry.resume();
          });
        }
      }
    });
    entry.on('end', () => {
      for (const ws of sinks) ws.end();
      const digest = hash.digest('hex');
      if (name !== 'manifest.json') this.files.set(name, digest);
      if (chunks) this.memory.set(name, Buffer.concat(chunks));
    });
  }
}

function describeType(type: string): string {
  switch (type) {
    case 'SymbolicLink':
      return 'symbolic link';
    case 'Link':
      return 'hard link';
    case 'CharacterDevice':
    case 'BlockDevice':
      return 'device';
    case 'FIFO':
      return 'FIFO';
    default:
      return `${type} entry`;
  }
}

const safeName = (name: string | undefined): string | undefined =>
  name === undefined ? undefined : name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200);
