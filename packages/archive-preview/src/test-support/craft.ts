/**
 * Hand-crafted archives for the hostile-archive tests: raw tar entries of any type (encoded by the
 * `tar` package's Header/Pax), compressed with zstd, and a manifest computed over chosen files.
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { Header, Pax } from 'tar';
import { renderManifest } from '../core/manifest.ts';

export interface CraftEntry {
  name: string;
  /** tar type name: File, Directory, SymbolicLink, Link, CharacterDevice, FIFO, … */
  type?: string;
  body?: Uint8Array | string;
  linkpath?: string;
  /** Force a pax header for the name. */
  pax?: boolean;
  /** Declared size (defaults to the body's length). */
  size?: number;
}

export function tarBytes(entries: readonly CraftEntry[], { end = true } = {}): Buffer {
  const out: Buffer[] = [];
  const mtime = new Date('2026-09-01T03:00:00.000Z');
  for (const e of entries) {
    const body = e.body === undefined ? Buffer.alloc(0) : Buffer.from(e.body);
    const type = e.type ?? 'File';
    const size = e.size ?? (type === 'File' ? body.length : 0);
    const h = new Header({
      path: e.name,
      mode: 0o600,
      uid: 0,
      gid: 0,
      size,
      mtime,
      type: type as 'File',
      uname: '',
      gname: '',
      ...(e.linkpath ? { linkpath: e.linkpath } : {}),
    });
    const needPax = h.encode();
    if (needPax || e.pax) out.push(new Pax({ path: e.name, size, mtime }).encode());
    out.push(h.block as Buffer);
    out.push(body);
    out.push(Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  if (end) out.push(Buffer.alloc(1024));
  return Buffer.concat(out);
}

export const zstd = (bytes: Uint8Array): Buffer => zlib.zstdCompressSync(bytes);

export const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** A manifest listing exactly `files` (name → content) with their real hashes. */
export function manifestFor(
  files: Record<string, Uint8Array | string>,
  overrides: Record<string, unknown> = {},
): string {
  const checksums = new Map(Object.entries(files).map(([n, b]) => [n, sha256(b)]));
  const text = renderManifest({
    createdAt: '2026-09-01T03:00:00.000Z',
    hostname: 'nas',
    appVersion: '1.4.0',
    checksums,
  });
  if (Object.keys(overrides).length === 0) return text;
  return `${JSON.stringify({ ...JSON.parse(text), ...overrides }, null, 2)}\n`;
}

/** A complete archive: the given files, then a manifest over them. */
export function craftArchive(files: Record<string, Uint8Array | string>, extra: CraftEntry[] = []): Buffer {
  const entries: CraftEntry[] = Object.entries(files).map(([name, body]) => ({ name, body }));
  return zstd(tarBytes([...entries, ...extra, { name: 'manifest.json', body: manifestFor(files) }]));
}

/** Every regular file of an archive (manifest included), for tests that re-pack a real export. */
export async function unpackArchive(archive: Uint8Array): Promise<Map<string, Buffer>> {
  const { Parser } = await import('tar');
  const files = new Map<string, Buffer>();
  const parser = new Parser({ strict: true });
  parser.on('entry', (entry) => {
    const chunks: Buffer[] = [];
    entry.on('data', (c: Buffer) => chunks.push(c));
    entry.on('end', () => files.set(entry.path, Buffer.concat(chunks)));
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.on('end', () => resolve());
    parser.on('error', reject);
  });
  parser.end(zlib.zstdDecompressSync(archive));
  await done;
  return files;
}

/** Re-packs an export after `mutate` changed its files; the manifest is recomputed (valid checksums). */
export async function repack(
  archive: Uint8Array,
  mutate: (files: Map<string, Buffer>) => void,
): Promise<Buffer> {
  const files = await unpackArchive(archive);
  files.delete('manifest.json');
  mutate(files);
  return craftArchive(Object.fromEntries(files));
}
