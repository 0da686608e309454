/**
 * A stack's logs from the Engine (demultiplexed): the last lines of each container merged by time,
 * newest last; or followed live, lines as they come from every container of the stack.
 */
import { mergeNewestLast } from '../core/log-demux.ts';
import type { LogLine, StacksDeps } from '../ports.ts';
import { requireStack } from './state.ts';
import { AppError } from '@appliance/common';

export interface LogsRequest {
  service?: string;
  tail?: number;
  since?: number;
}

async function containersOf(deps: StacksDeps, name: string, service: string | undefined) {
  await requireStack(deps, name);
  const all = await deps.engine.containers(name);
  if (service === undefined) return all;
  const some = all.filter((c) => c.service === service);
  if (some.length === 0)
    throw new AppError(
      404,
      'service_not_found',
      `The stack ${name} has no container of a service ${service}; read GET /stacks/${name} for its services.`,
      { stack: name, service },
    );
  return some;
}

export async function stackLogs(deps: StacksDeps, name: string, request: LogsRequest): Promise<LogLine[]> {
  const tail = request.tail ?? 200;
  const lists: LogLine[][] = [];
  for (const c of await containersOf(deps, name, request.service)) {
    const lines: LogLine[] = [];
    for await (const l of deps.engine.logs(c, {
      tail,
      follow: false,
      ...(request.since !== undefined ? { since: request.since } : {}),
    }))
      lines.push(l);
    lists.push(lines);
  }
  return mergeNewestLast(lists, tail);
}

/** Live lines of every container until `signal` aborts (each container's recent `tail` first). */
export async function* followStackLogs(
  deps: StacksDeps,
  name: string,
  request: LogsRequest,
  signal: AbortSignal,
): AsyncIterable<LogLine> {
  const containers = await containersOf(deps, name, request.service);
  const queue: LogLine[] = [];
  let wake: (() => void) | null = null;
  let open = containers.length;
  let failure: unknown = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  for (const c of containers) {
    void (async () => {
      try {
        for await (const l of deps.engine.logs(c, {
          tail: request.tail ?? 50,
          follow: true,
          signal,
          ...(request.since !== undefined ? { since: request.since } : {}),
        })) {
          queue.push(l);
          notify();
        }
      } catch (e) {
        if (!signal.aborted) failure = e;
      } finally {
        open--;
        notify();
      }
    })();
  }
  const aborted = new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
  while (!signal.aborted) {
    while (queue.length > 0) yield queue.shift()!;
    if (failure) throw failure;
    if (open === 0) return;
    await Promise.race([new Promise<void>((r) => (wake = r)), aborted]);
  }
}
