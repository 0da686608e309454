/**
 * The service's HTTP adapter: Node's `(IncomingMessage, ServerResponse)` to a Fetch handler
 * (`app.fetch` of Hono) and back, for the TCP listener and the Unix socket alike (server.ts).
 *
 * Why its own and not @hono/node-server: that adapter needs undici's classes when it loads, and
 * node:http2 and node:tls with them, about 7 MiB of the idle service and a fifth of its start
 * (docs/decisions/performance.md, "The web globals"). This one works with any Fetch classes: the
 * light ones the service's process installs (globals.ts), or undici's where they are the globals
 * (in tests, `LightRequest` still carries each request).
 *
 * What it keeps of a server's duties:
 * - a target or Host that cannot form a URL is `400` (url.ts), answered by `options.badRequest`;
 * - a string or bytes body is written in one `end()` with its Content-Length, a stream chunk by chunk
 *   as the client takes it, and a client that leaves cancels the stream;
 * - `request.signal` aborts when the client leaves before the answer is complete;
 * - a request body the handler did not read is drained after the answer (up to 64 MiB and one
 *   second, then the connection is closed), so a keep-alive connection stays usable;
 * - a handler that throws (Hono's `onError` already answers every error a route raises) is
 *   `options.failed`, a 500.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BodySource } from './body.ts';
import { LightResponse } from './response.ts';
import { LightRequest } from './request.ts';
import { BadTarget, requestUrl } from './url.ts';

export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** A Fetch handler: `app.fetch` of Hono, or anything of its shape. */
export type FetchHandler = (request: Request, env: NodeBindings) => Response | Promise<Response>;

export interface ListenerOptions {
  /** The answer to a request that cannot form a URL (400); `message` says what to send instead. */
  badRequest: (message: string) => Response;
  /** The answer when the handler throws or rejects (a bug: the app answers its own errors). */
  failed: (err: unknown) => Response;
  /** A failure after the answer began (a stream that broke): the connection is then closed. */
  onStreamError?: (err: unknown) => void;
}

const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_LIMIT_MS = 1000;

export function createRequestListener(
  handler: FetchHandler,
  options: ListenerOptions,
): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  return (incoming, outgoing) => {
    let url: string;
    try {
      url = requestUrl(incoming);
    } catch (err) {
      if (!(err instanceof BadTarget)) throw err;
      answer(options.badRequest(err.message), incoming, outgoing, options);
      return;
    }
    const request = LightRequest.fromIncoming(incoming, outgoing, url) as unknown as Request;
    let result: Response | Promise<Response>;
    try {
      result = handler(request, { incoming, outgoing });
    } catch (err) {
      result = options.failed(err);
    }
    if (typeof (result as Promise<Response>).then === 'function')
      (result as Promise<Response>).then(
        (response) => answer(response, incoming, outgoing, options),
        (err: unknown) => answer(options.failed(err), incoming, outgoing, options),
      );
    else answer(result as Response, incoming, outgoing, options);
  };
}

/** Writes a Fetch response to Node's: head, then the body. */
function answer(
  response: Response,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  options: ListenerOptions,
): void {
  if (outgoing.destroyed) return;
  let headers: OutgoingHttpHeaders;
  let hasLength: boolean;
  let source: BodySource;
  if (response instanceof LightResponse) {
    ({ headers, hasLength } = response.headers.toNode());
    source = response.takeSource();
  } else {
    headers = {};
    for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
    const cookies = response.headers.getSetCookie();
    if (cookies.length) headers['set-cookie'] = cookies;
    hasLength = response.headers.has('content-length');
    source = response.body;
  }
  drainAfterAnswer(incoming, outgoing);
  const status = response.status;
  const statusText = response.statusText || undefined;
  if (source === null || typeof source === 'string' || source instanceof Uint8Array) {
    if (source !== null && !hasLength)
      headers['content-length'] = typeof source === 'string' ? Buffer.byteLength(source) : source.byteLength;
    outgoing.writeHead(status, statusText, headers);
    outgoing.end(source ?? undefined);
    return;
  }
  outgoing.writeHead(status, statusText, headers);
  if (source instanceof Blob) {
    source.arrayBuffer().then(
      (bytes) => outgoing.end(new Uint8Array(bytes)),
      (err: unknown) => broken(err, outgoing, options),
    );
    return;
  }
  pump(source, outgoing).catch((err: unknown) => broken(err, outgoing, options));
}

/** A stream body, written as the client takes it; the client leaving destroys (cancels) it. */
function pump(source: ReadableStream<Uint8Array> | Readable, outgoing: ServerResponse): Promise<void> {
  const readable =
    source instanceof Readable
      ? source
      : Readable.fromWeb(source as import('node:stream/web').ReadableStream);
  return pipeline(readable, outgoing);
}

/** A body that broke after its head was sent: the client sees the connection close mid-body. */
function broken(err: unknown, outgoing: ServerResponse, options: ListenerOptions): void {
  if (outgoing.destroyed) return;
  options.onStreamError?.(err);
  outgoing.destroy(err instanceof Error ? err : new Error(String(err)));
}

/**
 * A request body nobody read: once the answer is out, read and drop it so that the connection can
 * carry the next request; past 64 MiB or a second, close the connection instead.
 */
function drainAfterAnswer(incoming: IncomingMessage, outgoing: ServerResponse): void {
  if (incoming.readableEnded || incoming.method === 'GET' || incoming.method === 'HEAD') return;
  outgoing.once('finish', () => {
    if (incoming.readableEnded || incoming.destroyed) return;
    let bytes = 0;
    const stop = () => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', stop);
      incoming.off('error', stop);
    };
    const close = () => {
      stop();
      incoming.socket?.destroySoon?.();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > DRAIN_LIMIT_BYTES) close();
    };
    const timer = setTimeout(close, DRAIN_LIMIT_MS);
    timer.unref();
    incoming.on('data', onData);
    incoming.on('end', stop);
    incoming.on('error', stop);
    incoming.resume();
  });
}
