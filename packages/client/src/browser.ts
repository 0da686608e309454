/**
 * The browser transport of the typed client (`@appliance/client/browser`): `fetch` to the page's
 * own origin with the session cookie (`credentials: 'same-origin'`) and the `X-Appliance-UI`
 * header every write of the web UI must carry (docs/decisions/web-ui.md); `GET /events` through
 * the browser's `EventSource`, which reconnects by itself. No Node module is loaded, and no
 * credential is ever kept by the client (the cookie is HttpOnly).
 */
import { ApiError, apiErrorOf } from './errors.ts';
import type { NotificationEvent, ProgressEvent } from './events.ts';
import { resolvePath } from './path.ts';
import type { InitArgs, Method, Operation, PathsWith, Success, JsonCalls } from './types.ts';

export { ApiError };
export type { NotificationEvent, ProgressEvent };

/** The header the web UI sends with every request (the server refuses cookie writes without it). */
export const UI_HEADER = 'X-Appliance-UI';

export interface BrowserClientOptions {
  /** Origin and path prefix of the service; default the page's own origin (`''`). */
  base?: string;
  /** The fetch to use (tests); default the global one. */
  fetch?: typeof fetch;
}

export interface BrowserEvents {
  /** Stops listening (the operations go on). */
  close(): void;
}

export interface BrowserEventHandlers {
  onNotification?(event: NotificationEvent): void;
  onProgress?(event: ProgressEvent): void;
  /** The stream is open (first connection and every reconnection). */
  onOpen?(): void;
  /** The stream dropped; the browser reconnects on its own. */
  onError?(): void;
}

/** A line of a stack's container logs (`GET /stacks/{name}/logs`). */
export type StackLogLine = Success<Operation<'get', '/stacks/{name}/logs'>>['lines'][number];

export interface StackLogHandlers {
  /** The last `tail` lines first, then each new line as the containers print it. */
  onLine(line: StackLogLine): void;
  /** The stream is open (first connection and every reconnection; lines may repeat after one). */
  onOpen?(): void;
  /** The service said the logs ended (the containers are gone) or failed, with its sentence. */
  onEnd?(message: string | null): void;
  /** The stream dropped; the browser reconnects on its own. */
  onError?(): void;
}

export interface BrowserClient extends JsonCalls {
  /** `GET /events` as callbacks, reconnecting after the service restarts. */
  events(handlers: BrowserEventHandlers): BrowserEvents;
  /** `GET /stacks/{name}/logs?follow=1` (server-sent events) as callbacks; `close()` stops it. */
  stackLogs(
    name: string,
    options: { tail?: number; service?: string },
    handlers: StackLogHandlers,
  ): BrowserEvents;
  /** A route whose answer is a file (`POST /config/export`): its bytes and its file name. */
  download<P extends PathsWith<'post'>>(path: P): Promise<{ blob: Blob; filename: string | null }>;
  /** A GET route whose answer is a file (`GET /backups/snapshots/{id}/configuration`). */
  getFile<P extends PathsWith<'get'>>(
    path: P,
    init: { params?: Record<string, string>; query?: Record<string, unknown> },
  ): Promise<{ blob: Blob; filename: string | null }>;
  /** A multipart upload (`POST /config/import/preview`): the form's parts as they are. */
  upload<P extends PathsWith<'post'>>(path: P, form: FormData): Promise<Success<Operation<'post', P>>>;
}

interface LooseInit {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export function createBrowserClient(options: BrowserClientOptions = {}): BrowserClient {
  const base = `${options.base ?? ''}/api/v1`;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const call =
    (method: Method) =>
    async (template: string, init: LooseInit = {}): Promise<unknown> => {
      const headers: Record<string, string> = {
        accept: 'application/json',
        [UI_HEADER]: '1',
        ...init.headers,
      };
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      let res: Response;
      try {
        res = await doFetch(`${base}${resolvePath(template, init.params, init.query)}`, {
          method: method.toUpperCase(),
          headers,
          credentials: 'same-origin',
          ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
          ...(init.signal ? { signal: init.signal } : {}),
        });
      } catch (err) {
        if ((err as Error).name === 'AbortError') throw err;
        throw new ApiError(
          0,
          'unreachable',
          'The appliance service cannot be reached; check that it is running, then retry.',
        );
      }
      const text = await res.text();
      if (!res.ok) throw apiErrorOf(res.status, text);
      if (res.status === 204 || text === '') return undefined;
      try {
        return JSON.parse(text);
      } catch {
        throw new ApiError(
          res.status,
          'bad_response',
          `The service answered ${res.status} with a body that is not JSON.`,
        );
      }
    };
  const send = async (path: string, body: FormData | null): Promise<Response> => {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method: 'POST',
        headers: { [UI_HEADER]: '1', ...(body ? {} : { 'content-type': 'application/json' }) },
        credentials: 'same-origin',
        body: body ?? '{}',
      });
    } catch {
      throw new ApiError(
        0,
        'unreachable',
        'The appliance service cannot be reached; check that it is running, then retry.',
      );
    }
    if (!res.ok) throw apiErrorOf(res.status, await res.text());
    return res;
  };
  return {
    get: call('get'),
    post: call('post'),
    put: call('put'),
    patch: call('patch'),
    delete: call('delete'),
    async download(path: string) {
      const res = await send(path, null);
      const disposition = res.headers.get('content-disposition') ?? '';
      const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? null;
      return { blob: await res.blob(), filename };
    },
    async getFile(
      template: string,
      init: { params?: Record<string, string>; query?: Record<string, unknown> },
    ) {
      let res: Response;
      try {
        res = await doFetch(`${base}${resolvePath(template, init.params, init.query)}`, {
          headers: { [UI_HEADER]: '1' },
          credentials: 'same-origin',
        });
      } catch {
        throw new ApiError(
          0,
          'unreachable',
          'The appliance service cannot be reached; check that it is running, then retry.',
        );
      }
      if (!res.ok) throw apiErrorOf(res.status, await res.text());
      const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null;
      return { blob: await res.blob(), filename };
    },
    async upload(path: string, form: FormData) {
      // the browser sets the multipart content type with its boundary
      return (await send(path, form)).json();
    },
    stackLogs(name: string, o: { tail?: number; service?: string }, handlers: StackLogHandlers) {
      const url = resolvePath(
        '/stacks/{name}/logs',
        { name },
        { follow: '1', tail: o.tail, service: o.service },
      );
      const s = new EventSource(`${base}${url}`);
      const data = (e: Event): Record<string, unknown> | null => {
        try {
          return JSON.parse(String((e as MessageEvent).data)) as Record<string, unknown>;
        } catch {
          return null;
        }
      };
      s.addEventListener('open', () => handlers.onOpen?.());
      s.addEventListener('line', (e) => {
        const line = data(e);
        if (line) handlers.onLine(line as StackLogLine);
      });
      s.addEventListener('end', () => {
        s.close();
        handlers.onEnd?.(null);
      });
      // the service's own `error` event carries a sentence; the browser's has no data
      s.addEventListener('error', (e) => {
        const said = data(e);
        if (said && typeof said['message'] === 'string') {
          s.close();
          handlers.onEnd?.(said['message']);
        } else handlers.onError?.();
      });
      return { close: () => s.close() };
    },
    events(handlers: BrowserEventHandlers) {
      let source: EventSource | null = null;
      let retry: ReturnType<typeof setTimeout> | null = null;
      let stopped = false;
      const parse = (e: Event): unknown => {
        try {
          return JSON.parse(String((e as MessageEvent).data));
        } catch {
          return null;
        }
      };
      const open = () => {
        const s = new EventSource(`${base}/events`);
        source = s;
        s.addEventListener('notification', (e) => {
          const data = parse(e);
          if (data) handlers.onNotification?.(data as NotificationEvent);
        });
        s.addEventListener('progress', (e) => {
          const data = parse(e);
          if (data) handlers.onProgress?.(data as ProgressEvent);
        });
        s.addEventListener('open', () => handlers.onOpen?.());
        s.addEventListener('error', () => {
          handlers.onError?.();
          // The browser retries a dropped stream itself; one it gave up on (an error answer while
          // the service restarts) is opened again here.
          if (s.readyState === EventSource.CLOSED && !stopped) retry = setTimeout(open, 2000);
        });
      };
      open();
      return {
        close: () => {
          stopped = true;
          if (retry) clearTimeout(retry);
          source?.close();
        },
      };
    },
  } as unknown as BrowserClient;
}
