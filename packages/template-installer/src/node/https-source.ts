/**
 * Refresh of an `https` catalog source (02 §1.3): download `<url>` and `<url>.sig`, verify the
 * Ed25519 signature BEFORE decompressing, unpack the zstd tar with its limits, check
 * `catalog.json`, and swap the folder in atomically. A failure keeps the old copy.
 */
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { zlib } from '@appliance/common';
import type { ReadEntry } from 'tar';

export const ARCHIVE_MAX_BYTES = 64 * 1024 * 1024;
export const UNPACKED_MAX_BYTES = 256 * 1024 * 1024;
export const ENTRIES_MAX = 10_000;

/**
 * What failed: the download (`network`), a check of what was downloaded (`signature`, `serial`,
 * `archive`: the catalog_check_failed event, never raised for a mere network failure), the source's
 * public key (`key`), or storing the new copy (`store`).
 */
export type RefreshErrorKind = 'network' | 'signature' | 'serial' | 'archive' | 'key' | 'store';

export class RefreshError extends Error {
  readonly kind: RefreshErrorKind;
  constructor(message: string, kind: RefreshErrorKind = 'network') {
    super(message);
    this.name = 'RefreshError';
    this.kind = kind;
  }
}

/** Whether a refresh failed a check of the catalog itself (signature, serial or archive). */
export const isCatalogCheckFailure = (e: unknown): e is RefreshError =>
  e instanceof RefreshError && (e.kind === 'signature' || e.kind === 'serial' || e.kind === 'archive');

export interface HttpResponse {
  status: number;
  location: string | null;
  body: Uint8Array;
}
/** One GET without following redirects; the body is refused beyond `limit` bytes. */
export type HttpGet = (url: string, limit: number, signal: AbortSignal) => Promise<HttpResponse>;

/** `url` rules of 02 §1.3: https, no credentials, query or fragment. */
export function checkSourceUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'the url is not a valid URL';
  }
  if (u.protocol !== 'https:') return 'the url must start with https://';
  if (u.username || u.password) return 'the url may not carry credentials';
  if (u.search || url.includes('?')) return 'the url may not have a query';
  if (u.hash || url.includes('#')) return 'the url may not have a fragment';
  return null;
}

/** An Ed25519 public key given as base64 of its 32 raw bytes. */
export function publicKeyFromBase64(b64: string) {
  const raw = /^[A-Za-z0-9+/]{43}=$/.test(b64) ? Buffer.from(b64, 'base64') : null;
  if (raw?.length !== 32) return null;
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
  return createPublicKey({ key: spki, format: 'der', type: 'spki' });
}

export const defaultHttpGet: HttpGet = async (url, limit, signal) => {
  const res = await fetch(url, { redirect: 'manual', signal });
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    return { status: res.status, location, body: new Uint8Array() };
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      total += chunk.byteLength;
      if (total > limit) throw new RefreshError(`the download is larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  }
  return { status: res.status, location, body: Buffer.concat(chunks) };
};

async function download(url: string, limit: number, get: HttpGet, signal: AbortSignal): Promise<Buffer> {
  let current = url;
  const host = new URL(url).host;
  for (let hop = 0; ; hop++) {
    const res = await get(current, limit, signal);
    if (res.status >= 300 && res.status < 400) {
      if (hop >= 3) throw new RefreshError('more than 3 redirects');
      if (!res.location) throw new RefreshError('a redirect without a location');
      const next = new URL(res.location, current);
      if (next.protocol !== 'https:' || next.host !== host)
        throw new RefreshError('a redirect to another host');
      current = next.href;
      continue;
    }
    if (res.status !== 200) throw new RefreshError(`${current} answered HTTP ${res.status}`);
    if (res.body.byteLength > limit) throw new RefreshError(`the download is larger than ${limit} bytes`);
    return Buffer.from(res.body);
  }
}

export interface UnpackedCatalog {
  serial: number;
  dirs: string[];
  files: Map<string, Buffer>;
}

/** Unpacks a verified archive in memory with the limits of 02 §1.3. */
export async function unpackCatalogArchive(archive: Buffer): Promise<UnpackedCatalog> {
  let tarBytes: Buffer;
  try {
    tarBytes = zlib().zstdDecompressSync(archive, {
      maxOutputLength: UNPACKED_MAX_BYTES + ENTRIES_MAX * 1024 + 1024 * 1024,
    });
  } catch {
    throw new RefreshError('the archive is not zstd data or unpacks to more than 256 MiB', 'archive');
  }
  const dirs: string[] = [];
  const files = new Map<string, Buffer>();
  let entries = 0;
  let total = 0;
  let problem: string | null = null;
  // tar is loaded on the first refresh, not at the service's start (docs/decisions/performance.md)
  const { Parser } = await import('tar');
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        entries++;
        const rel = entry.path.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
        const bad =
          entries > ENTRIES_MAX
            ? 'more than 10,000 entries'
            : rel === '' && entry.type === 'Directory'
              ? null
              : path.posix.isAbsolute(entry.path) ||
                  rel.split('/').some((s) => s === '..' || s === '' || s === '.')
                ? `the entry ${entry.path} has an absolute path or ".."`
                : entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'Directory'
                  ? `the entry ${entry.path} is a ${entry.type}, not a file or directory`
                  : null;
        if (bad && !problem) problem = bad;
        if (bad || rel === '') {
          entry.resume();
          return;
        }
        if (entry.type === 'Directory') {
          dirs.push(rel);
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => {
          total += c.length;
          if (total > UNPACKED_MAX_BYTES && !problem) problem = 'more than 256 MiB unpacked';
          if (!problem) chunks.push(c);
        });
        entry.on('end', () => files.set(rel, Buffer.concat(chunks)));
      },
    });
    parser.on('error', (e: Error) =>
      reject(new RefreshError(`the archive is not a valid tar file: ${e.message}`, 'archive')),
    );
    parser.on('end', () => resolve());
    parser.end(tarBytes);
  });
  if (problem) throw new RefreshError(problem, 'archive');
  const manifest = files.get('catalog.json');
  if (!manifest) throw new RefreshError('the archive has no catalog.json', 'archive');
  let parsed: unknown;
  try {
    parsed = JSON.parse(manifest.toString('utf8'));
  } catch {
    throw new RefreshError('catalog.json is not valid JSON', 'archive');
  }
  const m = parsed as { schema?: unknown; serial?: unknown };
  if (m.schema !== 1 || typeof m.serial !== 'number' || !Number.isSafeInteger(m.serial) || m.serial < 0)
    throw new RefreshError('catalog.json must be {"schema":1,"serial":N} with N a whole number', 'archive');
  return { serial: m.serial, dirs, files };
}

/** Downloads, verifies, unpacks and swaps in a source's folder. Returns the new serial. */
export async function refreshHttpsSource(options: {
  catalogDir: string;
  sourceId: string;
  url: string;
  publicKey: string;
  storedSerial: number | null;
  get?: HttpGet;
  timeoutMs?: number;
}): Promise<number> {
  const get = options.get ?? defaultHttpGet;
  const key = publicKeyFromBase64(options.publicKey);
  if (!key) throw new RefreshError('the public key is not base64 of 32 bytes', 'key');
  const signal = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  let archive: Buffer;
  let signature: Buffer;
  try {
    archive = await download(options.url, ARCHIVE_MAX_BYTES, get, signal);
    signature = await download(`${options.url}.sig`, 64, get, signal);
  } catch (e) {
    if (e instanceof RefreshError) throw e;
    throw new RefreshError(`the download failed: ${(e as Error).message}`);
  }
  if (signature.length !== 64 || !verify(null, archive, key, signature))
    throw new RefreshError('the signature does not match the archive and the source public key', 'signature');
  const unpacked = await unpackCatalogArchive(archive);
  if (options.storedSerial !== null && unpacked.serial <= options.storedSerial)
    throw new RefreshError(
      `the catalog serial ${unpacked.serial} is not above the current ${options.storedSerial}`,
      'serial',
    );
  const tag = randomBytes(6).toString('hex');
  const tmp = path.join(options.catalogDir, `.${options.sourceId}.tmp-${tag}`);
  const old = path.join(options.catalogDir, `.${options.sourceId}.old-${tag}`);
  const target = path.join(options.catalogDir, options.sourceId);
  await fs.mkdir(tmp, { recursive: true, mode: 0o755 });
  try {
    for (const d of unpacked.dirs) await fs.mkdir(path.join(tmp, d), { recursive: true, mode: 0o755 });
    for (const [rel, data] of unpacked.files) {
      await fs.mkdir(path.dirname(path.join(tmp, rel)), { recursive: true, mode: 0o755 });
      await fs.writeFile(path.join(tmp, rel), data, { mode: 0o644, flag: 'wx' });
    }
    const had = await fs.lstat(target).then(
      () => true,
      () => false,
    );
    if (had) await fs.rename(target, old);
    await fs.rename(tmp, target);
    if (had) await fs.rm(old, { recursive: true, force: true });
  } catch (e) {
    await fs.rm(tmp, { recursive: true, force: true });
    throw new RefreshError(`the new copy could not be stored: ${(e as Error).message}`, 'store');
  }
  return unpacked.serial;
}
