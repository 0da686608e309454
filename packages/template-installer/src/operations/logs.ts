/**
 * GET /stacks/:name/logs with follow: the lines of every container of the stack, followed until
 * the client leaves, written as events (`line`, then `end`, or `error` with the message) with a
 * keep-alive comment every 15 seconds.
 */
import type { LogLine, StacksDeps } from '../stacks/ports.ts';
import { followStackLogs, type LogsRequest } from '../stacks/operations/logs.ts';
import { requireStack } from '../stacks/operations/state.ts';

export interface LogFollow {
  readonly lines: AsyncIterator<LogLine>;
  /** The first step, already under way. */
  readonly first: Promise<IteratorResult<LogLine>>;
  readonly controller: AbortController;
}

/** Starts following; the first step runs now, so an unknown stack or service is refused, not an empty stream. */
export async function openLogFollow(
  deps: StacksDeps,
  name: string,
  request: LogsRequest,
): Promise<LogFollow> {
  await requireStack(deps, name);
  const controller = new AbortController();
  const lines = followStackLogs(deps, name, request, controller.signal)[Symbol.asyncIterator]();
  const first = lines.next();
  first.catch(() => undefined);
  await Promise.race([first, new Promise((r) => setTimeout(r, 50))]);
  return { lines, first, controller };
}

/** Where followed lines go (server-sent events). */
export interface LogSink {
  /** A comment line (`connected`, `ping`). */
  comment(text: string): Promise<unknown>;
  event(name: 'line' | 'end' | 'error', data: string): Promise<unknown>;
  onAbort(listener: () => void): void;
}

export const LOG_PING_MS = 15_000;

/** Writes the followed lines to `sink` until they end, fail or the client leaves. */
export async function pipeLogFollow(follow: LogFollow, sink: LogSink, pingMs = LOG_PING_MS): Promise<void> {
  const { controller } = follow;
  sink.onAbort(() => controller.abort());
  const ping = setInterval(() => void sink.comment('ping').catch(() => controller.abort()), pingMs);
  try {
    await sink.comment('connected');
    let next = follow.first;
    for (;;) {
      const r = await next;
      if (r.done) break;
      await sink.event('line', JSON.stringify(r.value));
      next = follow.lines.next();
    }
    await sink.event('end', '{}');
  } catch (e) {
    if (!controller.signal.aborted)
      await sink.event('error', JSON.stringify({ message: (e as Error).message })).catch(() => undefined);
  } finally {
    clearInterval(ping);
    controller.abort();
  }
}
