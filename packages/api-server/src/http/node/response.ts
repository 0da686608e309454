/**
 * `LightResponse`: the Fetch `Response` Hono builds its answers with in the service's process
 * (globals.ts), without undici. The adapter (listener.ts) writes its body straight to Node's
 * `ServerResponse`: a string or bytes in one `end()`, a stream chunk by chunk.
 */
import {
  type BodySource,
  bodyUsedError,
  extractBody,
  plainBytes,
  readAll,
  readText,
  teeBody,
  toWebStream,
} from './body.ts';
import { LightHeaders } from './headers.ts';

export interface LightResponseInit {
  status?: number;
  statusText?: string;
  headers?: ConstructorParameters<typeof LightHeaders>[0];
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

export class LightResponse {
  #source: BodySource;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  readonly status: number;
  readonly statusText: string;
  readonly headers: LightHeaders;
  readonly type: string = 'default';
  readonly url: string = '';
  readonly redirected = false;

  constructor(body?: unknown, init: LightResponseInit = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599)
      throw new RangeError(`Response: status ${status} is outside 200-599`);
    this.status = status;
    this.statusText = init.statusText ?? '';
    this.headers = new LightHeaders(init.headers);
    const { source, type } = extractBody(body);
    if (source !== null && NULL_BODY_STATUS.has(status))
      throw new TypeError(`Response: a ${status} response cannot have a body`);
    if (type && !this.headers.has('content-type')) this.headers.set('content-type', type);
    this.#source = source;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The body as a web stream (made on first access; reading it uses the body). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined) this.#stream = toWebStream(this.#source);
    return this.#stream;
  }

  /** For the adapter: the body as it was given, taken once. */
  takeSource(): BodySource {
    if (this.#used) throw bodyUsedError();
    const source = this.#stream ?? this.#source;
    // A null body is never "used" (the standard's bodyUsed: a body that was read).
    if (source !== null) this.#used = true;
    return source;
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

  clone(): LightResponse {
    if (this.#used) throw bodyUsedError();
    const [mine, theirs] = teeBody(this.#stream ?? this.#source);
    this.#source = mine;
    this.#stream = undefined;
    const copy = new LightResponse(null, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
    copy.#source = theirs;
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  static json(data: unknown, init: LightResponseInit = {}): LightResponse {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('Response.json: the value cannot be serialised');
    const headers = new LightHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LightResponse(text, { ...init, headers });
  }

  static redirect(url: string | URL, status = 302): LightResponse {
    if (!REDIRECT_STATUS.has(status))
      throw new RangeError(`Response.redirect: ${status} is not a redirect status`);
    return new LightResponse(null, { status, headers: { location: new URL(url).href } });
  }

  static error(): never {
    throw new TypeError('Response.error() has no meaning on this server');
  }
}
