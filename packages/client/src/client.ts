import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ApiError, apiErrorOf } from './errors.ts';
import { type EventStream, eventStream } from './events.ts';
import { type ClientOptions, readAll, send } from './transport.ts';
import { resolvePath } from './path.ts';
import type { CallOptions, InitArgs, Method, Operation, PathsWith, Success, JsonCalls } from './types.ts';

export { resolvePath };

/** The init of any route, untyped (the typed signatures are on ApplianceClient). */
interface LooseInit extends CallOptions {
  params?: Record<string, string> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

/** One part of a multipart upload: a text field, or a file streamed from disk. */
export type UploadPart = { name: string; value: string } | { name: string; file: string; filename?: string };

/** A streamed non-JSON answer (the config archive). */
export interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body; read it to the end (or destroy it). */
  stream: http.IncomingMessage;
  /** The file name of `Content-Disposition`, if any. */
  filename: string | null;
}

export interface ApplianceClient extends JsonCalls {
  /** A route whose answer is not JSON (`POST /config/export`): the body as a stream. */
  download<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...init: InitArgs<Operation<M, P>>
  ): Promise<Download>;
  /** A multipart upload (`POST /config/import/preview`): file parts are streamed from disk. */
  upload<P extends PathsWith<'post'>>(
    path: P,
    parts: UploadPart[],
    options?: CallOptions,
  ): Promise<Success<Operation<'post', P>>>;
  /** `GET /events`: notification and progress events until `close()`. */
  events(options?: CallOptions): EventStream;
  /** The options this client was made with. */
  readonly options: Readonly<ClientOptions>;
}

/**
 * A client of the appliance API: `createClient({socket})` acts as the local administrator over
 * the Unix socket, `createClient({url, token})` as a token's account over HTTP(S).
 */
export function createClient(options: ClientOptions): ApplianceClient {
  if ((options.socket === undefined) === (options.url === undefined))
    throw new TypeError('give the client exactly one of socket and url');
  const open = async (method: string, template: string, init: LooseInit | undefined) => {
    const i = init ?? {};
    const body = i.body === undefined ? undefined : Buffer.from(JSON.stringify(i.body));
    return send(options, {
      method: method.toUpperCase(),
      path: resolvePath(template, i.params, i.query),
      headers: {
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
        ...i.headers,
      },
      ...(body ? { body } : {}),
      signal: i.signal,
    });
  };
  const json = async (res: http.IncomingMessage): Promise<never> => {
    const text = (await readAll(res)).toString('utf8');
    const status = res.statusCode ?? 0;
    if (status >= 300) throw apiErrorOf(status, text);
    if (status === 204 || text === '') return undefined as never;
    try {
      return JSON.parse(text) as never;
    } catch {
      throw new ApiError(
        status,
        'bad_response',
        `The service answered ${status} with a body that is not JSON.`,
      );
    }
  };
  const call =
    (method: Method) =>
    async (template: string, init?: LooseInit): Promise<never> =>
      json(await open(method, template, init));
  return {
    options,
    get: call('get'),
    post: call('post'),
    put: call('put'),
    patch: call('patch'),
    delete: call('delete'),
    async download(method: Method, template: string, init?: LooseInit) {
      const res = await open(method, template, init);
      const status = res.statusCode ?? 0;
      if (status >= 300) throw apiErrorOf(status, (await readAll(res)).toString('utf8'));
      const disposition = String(res.headers['content-disposition'] ?? '');
      const m = /filename="?([^";]+)"?/.exec(disposition);
      return { status, headers: res.headers, stream: res, filename: m ? path.basename(m[1]!) : null };
    },
    async upload(template: string, parts: UploadPart[], o: CallOptions = {}) {
      const form = new FormData();
      for (const part of parts) {
        if ('value' in part) form.append(part.name, part.value);
        else
          form.append(part.name, await fs.openAsBlob(part.file), part.filename ?? path.basename(part.file));
      }
      // The platform encodes the multipart body (boundary, headers) and streams the files.
      const encoded = new Request('http://appliance.invalid/', { method: 'POST', body: form });
      const res = await send(options, {
        method: 'POST',
        path: resolvePath(template, undefined, undefined),
        headers: {
          accept: 'application/json',
          'content-type': encoded.headers.get('content-type')!,
          ...o.headers,
        },
        body: Readable.fromWeb(encoded.body! as import('node:stream/web').ReadableStream),
        signal: o.signal,
      });
      return json(res);
    },
    events(o: CallOptions = {}) {
      return eventStream((signal) => {
        const both = o.signal ? AbortSignal.any([signal, o.signal]) : signal;
        return send(options, {
          method: 'GET',
          path: '/events',
          headers: { accept: 'text/event-stream', ...o.headers },
          signal: both,
        });
      });
    },
  } as unknown as ApplianceClient;
}
