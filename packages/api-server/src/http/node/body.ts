/**
 * The bodies `LightRequest` and `LightResponse` carry, and how each is read: text, JSON, bytes, a
 * Blob, or a web `ReadableStream` made on demand (node:stream/web, not undici).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';

/** What a body is kept as until it is read. */
export type BodySource = string | Uint8Array | Blob | ReadableStream<Uint8Array> | Readable | null;

/** A body as given to a constructor, and the Content-Type the standard derives from it. */
export function extractBody(init: unknown): { source: BodySource; type: string | null } {
  if (init === undefined || init === null) return { source: null, type: null };
  if (typeof init === 'string') return { source: init, type: 'text/plain;charset=UTF-8' };
  if (init instanceof Uint8Array) return { source: init, type: null };
  if (init instanceof ArrayBuffer) return { source: new Uint8Array(init), type: null };
  if (ArrayBuffer.isView(init))
    return { source: new Uint8Array(init.buffer, init.byteOffset, init.byteLength), type: null };
  if (init instanceof Blob) return { source: init, type: init.type || null };
  if (init instanceof URLSearchParams)
    return { source: init.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (typeof (init as ReadableStream).getReader === 'function')
    return { source: init as ReadableStream<Uint8Array>, type: null };
  throw new TypeError(
    'This server builds bodies from a string, bytes, a Blob, URLSearchParams or a ReadableStream; FormData needs the standard Response (undici)',
  );
}

/** All of a body's bytes. */
export async function readAll(source: BodySource): Promise<Uint8Array> {
  if (source === null) return new Uint8Array();
  if (typeof source === 'string') return Buffer.from(source);
  if (source instanceof Uint8Array) return source;
  if (source instanceof Blob) return new Uint8Array(await source.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (source instanceof Readable) {
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
      chunks.push(bytes);
      total += bytes.byteLength;
    }
  } else {
    const reader = source.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

export async function readText(source: BodySource): Promise<string> {
  if (typeof source === 'string') return source;
  return Buffer.from(await readAll(source)).toString('utf8');
}

/** A web stream of the body (a Node stream is adapted, bytes are one chunk). */
export function toWebStream(source: BodySource): ReadableStream<Uint8Array> | null {
  if (source === null) return null;
  if (source instanceof Readable) return Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>;
  if (source instanceof Blob) return source.stream() as unknown as ReadableStream<Uint8Array>;
  if (typeof source === 'string' || source instanceof Uint8Array) {
    const bytes = typeof source === 'string' ? Buffer.from(source) : source;
    return Readable.toWeb(Readable.from([bytes])) as unknown as ReadableStream<Uint8Array>;
  }
  return source;
}

/** A second, independent copy of a body (`clone()`); a stream is teed, the original keeps one half. */
export function teeBody(source: BodySource): [BodySource, BodySource] {
  if (source === null || typeof source === 'string' || source instanceof Uint8Array || source instanceof Blob)
    return [source, source];
  const web = toWebStream(source) as unknown as NodeWebStream<Uint8Array>;
  const [a, b] = web.tee();
  return [a as unknown as ReadableStream<Uint8Array>, b as unknown as ReadableStream<Uint8Array>];
}

/** A Uint8Array, not Node's Buffer subclass, as the standard's bytes() answers. */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export const bodyUsedError = () => new TypeError('Body is unusable: it has already been read');

/**
 * What `LightRequest` and `LightResponse` share, as the standard's Body mixin: the body kept as it
 * was given, read once (`text`, `json`, `bytes`, `arrayBuffer`, `blob`, or the `body` stream).
 */
export abstract class LightBody {
  #source: BodySource;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(source: BodySource) {
    this.#source = source;
  }

  abstract get headers(): { get(name: string): string | null };

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The body as a web stream (made on first access; reading it uses the body). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined) this.#stream = toWebStream(this.#source);
    return this.#stream;
  }

  /** The body as it was given, taken once (a null body is never "used", as the standard says). */
  takeSource(): BodySource {
    if (this.#used) throw bodyUsedError();
    const source = this.#stream ?? this.#source;
    if (source !== null) this.#used = true;
    return source;
  }

  /** For `clone()`: this body and an independent copy of it (a stream is teed). */
  protected splitBody(): BodySource {
    if (this.#used) throw bodyUsedError();
    const [mine, theirs] = teeBody(this.#stream ?? this.#source);
    this.#source = mine;
    this.#stream = undefined;
    return theirs;
  }

  /** For `clone()` and a request made from another: the body a new object starts with. */
  protected replaceBody(source: BodySource): void {
    this.#source = source;
    this.#stream = undefined;
  }

  async text(): Promise<string> {
    return readText(this.takeSource());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async bytes(): Promise<Uint8Array> {
    return plainBytes(await readAll(this.takeSource()));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([(await this.bytes()) as Uint8Array<ArrayBuffer>], {
      type: this.headers.get('content-type') ?? '',
    });
  }
}
