/**
 * `LightRequest`: the Fetch `Request` Hono routes (the adapter makes one per request from Node's
 * `IncomingMessage`, listener.ts), without undici. The URL, the method and the headers are read from
 * Node's request as they are needed; the body is read from it directly (text, JSON, bytes) or
 * through a web stream made on first access of `body`; `signal` aborts when the client goes away
 * before the answer is complete.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodySource, extractBody, LightBody } from './body.ts';
import { LightHeaders, TOKEN } from './headers.ts';

export interface LightRequestInit {
  method?: string;
  headers?: ConstructorParameters<typeof LightHeaders>[0];
  body?: unknown;
  signal?: AbortSignal | null;
  duplex?: 'half';
}

const NORMALIZED = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH']);

function normalizeMethod(method: string): string {
  if (!TOKEN.test(method)) throw new TypeError(`Request: "${method}" is not a valid method`);
  const upper = method.toUpperCase();
  if (upper === 'CONNECT' || upper === 'TRACE' || upper === 'TRACK')
    throw new TypeError(`Request: the method ${upper} is forbidden`);
  return NORMALIZED.has(upper) ? upper : method;
}

/** The adapter's way in (fromIncoming): a request Node parsed. */
const FROM_NODE: unique symbol = Symbol('from node');
interface FromNode {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  url: string;
}

export class LightRequest extends LightBody {
  readonly url: string;
  readonly method: string;
  #headers: LightHeaders | null;
  #signal: AbortSignal | null;
  #incoming: IncomingMessage | null = null;
  #outgoing: ServerResponse | null = null;

  constructor(input: string | URL | LightRequest | typeof FROM_NODE, init: LightRequestInit | FromNode = {}) {
    if (input === FROM_NODE) {
      const { incoming, outgoing, url } = init as FromNode;
      const method = incoming.method ?? 'GET';
      super(method === 'GET' || method === 'HEAD' ? null : incoming);
      this.url = url;
      this.method = method;
      this.#headers = null;
      this.#incoming = incoming;
      this.#outgoing = outgoing;
      this.#signal = null;
      return;
    }
    const options = init as LightRequestInit;
    const from = input instanceof LightRequest ? input : null;
    const url = from ? from.url : new URL(String(input)).href;
    const method = options.method !== undefined ? normalizeMethod(options.method) : (from?.method ?? 'GET');
    const headers = new LightHeaders(options.headers ?? from?.headers);
    let source: BodySource = null;
    if (options.body !== undefined && options.body !== null) {
      const extracted = extractBody(options.body);
      source = extracted.source;
      if (extracted.type && !headers.has('content-type')) headers.set('content-type', extracted.type);
    } else if (options.body === undefined && from) {
      source = from.takeSource();
    }
    if (source !== null && (method === 'GET' || method === 'HEAD'))
      throw new TypeError(`Request: a ${method} request cannot have a body`);
    super(source);
    this.url = url;
    this.method = method;
    this.#headers = headers;
    this.#signal = options.signal ?? from?.signal ?? null;
  }

  /**
   * The request Node parsed, as the adapter passes it to Hono: `url` is built by the adapter
   * (listener.ts), the headers and the body stay Node's until they are read.
   */
  static fromIncoming(incoming: IncomingMessage, outgoing: ServerResponse, url: string): LightRequest {
    return new LightRequest(FROM_NODE, { incoming, outgoing, url });
  }

  get headers(): LightHeaders {
    if (!this.#headers) this.#headers = LightHeaders.fromNode(this.#incoming!.headers);
    return this.#headers;
  }

  /** Aborted when the client goes away before the answer is complete. */
  get signal(): AbortSignal {
    if (this.#signal) return this.#signal;
    const controller = new AbortController();
    this.#signal = controller.signal;
    const outgoing = this.#outgoing;
    if (outgoing && !outgoing.writableFinished)
      outgoing.once('close', () => {
        if (!outgoing.writableFinished)
          controller.abort(new Error('The client closed the connection before the answer was complete'));
      });
    return this.#signal;
  }

  async formData(): Promise<never> {
    throw new TypeError('This server does not parse form bodies; read the body as a stream');
  }

  clone(): LightRequest {
    const theirs = this.splitBody();
    const copy = new LightRequest(this.url, {
      method: this.method,
      headers: this.headers,
      signal: this.signal,
    });
    copy.replaceBody(theirs);
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  // The standard's fixed answers for a request that no browser sent.
  get cache(): string {
    return 'default';
  }
  get credentials(): string {
    return 'same-origin';
  }
  get destination(): string {
    return '';
  }
  get integrity(): string {
    return '';
  }
  get keepalive(): boolean {
    return false;
  }
  get mode(): string {
    return 'cors';
  }
  get redirect(): string {
    return 'follow';
  }
  get referrer(): string {
    return 'about:client';
  }
  get referrerPolicy(): string {
    return '';
  }
}
