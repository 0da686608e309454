/**
 * `GET /events` (08 §12) as an async iterator of typed events. The stream is opened at once;
 * `connected` resolves when the server has subscribed this stream (its `: connected` comment), so
 * a caller can start an operation after it and miss none of its progress events.
 */
import type http from 'node:http';
import { ApiError, apiErrorOf } from './errors.ts';
import { readAll } from './transport.ts';

/** A raised event (every one, routed or not). */
export interface NotificationEvent {
  id: number;
  eventType: string;
  severity: 'info' | 'warning' | 'error' | 'critical';
  title: string;
  message: string;
  occurredAt: string;
}

/** Progress of a long operation; the last event of each operation has `done: true`. */
export interface ProgressEvent {
  operationId: string;
  /** e.g. `share_data.delete`, `array.create`, `disks.external.format`, `disk.upgrade`. */
  operation: string;
  /** The share name, label or mountpoint the operation works on. */
  target: string;
  done: boolean;
  /** Counters of the operation, e.g. `{filesDeleted, dirsDeleted, bytesFreed}` or `{step, stepIndex, steps}`. */
  progress: Record<string, unknown>;
}

export type ServerEvent =
  | { type: 'notification'; id: string | undefined; data: NotificationEvent }
  | { type: 'progress'; id: string | undefined; data: ProgressEvent };

export interface EventStream extends AsyncIterable<ServerEvent> {
  /** Resolves once the server subscribed the stream; rejects with its error answer (ApiError). */
  readonly connected: Promise<void>;
  /** Stops the stream; the iterator then ends. */
  close(): void;
}

/** Parses an SSE byte stream into events; comments (`: ping`) call `onComment`. */
export async function* parseSse(
  stream: AsyncIterable<Buffer | string>,
  onComment: (text: string) => void = () => undefined,
): AsyncGenerator<{ event: string; data: string; id: string | undefined }> {
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  let id: string | undefined;
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl = buffer.search(/\r?\n/);
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(buffer[nl] === '\r' ? nl + 2 : nl + 1);
      nl = buffer.search(/\r?\n/);
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n'), id };
        event = 'message';
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(':')) {
        onComment(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
}

/** Wraps an opening `GET /events` request into an EventStream (read eagerly into a queue). */
export function eventStream(open: (signal: AbortSignal) => Promise<http.IncomingMessage>): EventStream {
  const controller = new AbortController();
  let markConnected!: () => void;
  let failConnected!: (err: unknown) => void;
  const connected = new Promise<void>((resolve, reject) => {
    markConnected = resolve;
    failConnected = reject;
  });
  // an unobserved rejection of `connected` must not crash the process: the iterator rethrows it
  connected.catch(() => undefined);
  const queue: ServerEvent[] = [];
  let ended = false;
  let failure: unknown = null;
  let closed = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const pump = async () => {
    const res = await open(controller.signal);
    if ((res.statusCode ?? 0) >= 300)
      throw apiErrorOf(res.statusCode ?? 0, (await readAll(res)).toString('utf8'));
    for await (const msg of parseSse(res, (text) => {
      if (text === 'connected') markConnected();
    })) {
      if (msg.event !== 'notification' && msg.event !== 'progress') continue;
      let data: unknown;
      try {
        data = JSON.parse(msg.data);
      } catch {
        continue;
      }
      queue.push({ type: msg.event, id: msg.id, data } as ServerEvent);
      notify();
    }
    if (!closed) throw new ApiError(0, 'stream_closed', 'The service closed the event stream.');
  };
  pump()
    .then(
      () => undefined,
      (err: unknown) => {
        if (!closed && (err as Error).name !== 'AbortError') failure = err;
        failConnected(failure ?? err);
      },
    )
    .finally(() => {
      ended = true;
      notify();
    });
  return {
    connected,
    close() {
      if (closed) return;
      closed = true;
      controller.abort();
      notify();
    },
    async *[Symbol.asyncIterator]() {
      try {
        while (true) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (closed) return;
          if (ended) {
            if (failure) throw failure;
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        this.close();
      }
    },
  };
}
