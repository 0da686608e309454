/**
 * Progress of a long operation, fed by `GET /events` (08 §12): the stream is opened and
 * subscribed before the operation starts, and the progress events of that operation and target
 * are drawn as a bar (cli-progress) on a terminal, or written as plain lines otherwise, on stderr.
 * Ctrl-C stops watching, not the operation, and says how to see it again.
 */
import type { ProgressEvent } from '@appliance/client';
import { Transform } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Ctx } from './context.ts';
import { duration, iec } from './format.ts';

/** One rendering of a progress event. `value`/`total` draw a bar when both are known. */
export interface ProgressView {
  text: string;
  value?: number;
  total?: number;
}

export interface WatchSpec<T> {
  /** The event's `operation` (e.g. `share_data.delete`). */
  operation: string;
  /** The event's `target` (share name, label, mountpoint). */
  target: string;
  /** What is being done, for the lines and the Ctrl-C message ("deleting the files of media"). */
  what: string;
  /** Starts the operation (the API call); resolves with its answer. */
  start: () => Promise<T>;
  render: (progress: Record<string, unknown>) => ProgressView;
}

/**
 * The `--help` paragraph of a command whose progress is watched: `what` is shown (e.g. "the
 * steps of the install"), `line` is a sample plain line.
 */
export function progressHelp(what: string, line: string): string {
  return (
    `\nProgress: ${what}.\n` +
    'It is shown with the elapsed time on stderr, fed by GET /events: a bar on a terminal,\n' +
    `one line per event otherwise, the last ending in ", done", e.g.\n  ${line}\n` +
    'Ctrl-C stops watching, not the operation (exit 130); follow it again with\n' +
    '"appliance events --progress", see its outcome with "appliance audit".'
  );
}

/** Ctrl-C while watching: the operation goes on in the service. */
export class Interrupted extends Error {
  override name = 'Interrupted';
}

export async function watchProgress<T>(ctx: Ctx, spec: WatchSpec<T>): Promise<T> {
  const { io } = ctx;
  const events = ctx.client.events();
  let watching = true;
  try {
    await events.connected;
  } catch (err) {
    // The operation matters more than its progress: without a stream it runs unwatched.
    watching = false;
    ctx.note(`(no progress: ${(err as Error).message})`);
  }
  const started = Date.now();
  const tty = Boolean(io.stderr.isTTY);
  let bar: cliProgress.SingleBar | null = null;
  let barHasTotal = false;
  let last: ProgressView | null = null;
  const show = (view: ProgressView, done: boolean) => {
    last = view;
    const elapsed = duration(Date.now() - started);
    if (!tty) {
      io.stderr.write(`${spec.operation} ${spec.target}: ${view.text}, ${elapsed}${done ? ', done' : ''}\n`);
      return;
    }
    const withTotal = view.total !== undefined && view.value !== undefined && view.total > 0;
    if (!bar || barHasTotal !== withTotal) {
      bar?.stop();
      barHasTotal = withTotal;
      bar = new cliProgress.SingleBar(
        {
          stream: io.stderr,
          format: withTotal ? '{bar} {percentage}% | {text} | {elapsed}' : '{text} | {elapsed}',
          hideCursor: true,
          clearOnComplete: false,
          barsize: 30,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(withTotal ? view.total! : 1, withTotal ? view.value! : 0, { text: view.text, elapsed });
    }
    bar.update(withTotal ? Math.min(view.value!, view.total!) : 0, { text: view.text, elapsed });
  };
  let operationId: string | null = null;
  const follow = (async () => {
    if (!watching) return;
    try {
      for await (const e of events) {
        if (e.type !== 'progress') continue;
        const p: ProgressEvent = e.data;
        if (p.operation !== spec.operation || p.target !== spec.target) continue;
        if (operationId !== null && p.operationId !== operationId) continue;
        operationId = p.operationId;
        show(spec.render(p.progress), p.done);
        if (p.done) return;
      }
    } catch {
      // the stream ended: the operation's own answer still arrives
    }
  })();
  let onSigint: (() => void) | null = null;
  const interrupted = new Promise<never>((_resolve, reject) => {
    onSigint = () => reject(new Interrupted(spec.what));
    process.once('SIGINT', onSigint);
  });
  try {
    const result = await Promise.race([spec.start(), interrupted]);
    // Draw the events still on their way: a service may pace its events (≤ 4/s) and answer before
    // the last of them; following stops at the operation's done event (or after 2 s without it).
    await Promise.race([follow, new Promise((r) => setTimeout(r, 2000).unref())]);
    return result;
  } catch (err) {
    if (err instanceof Interrupted) {
      (bar as cliProgress.SingleBar | null)?.stop();
      bar = null;
      io.stderr.write(
        `\nStopped watching; ${spec.what} goes on in the service.\n` +
          `  Follow it again:  appliance events --progress\n` +
          `  Its outcome:      appliance audit --limit 5\n`,
      );
    }
    throw err;
  } finally {
    if (onSigint) process.off('SIGINT', onSigint);
    events.close();
    if (bar) {
      const b = bar as cliProgress.SingleBar;
      if (barHasTotal && last) b.update((last as ProgressView).total ?? 0);
      b.stop();
    }
  }
}

/**
 * Progress of a download the service streams without publishing events (the config archive):
 * bytes received and elapsed time, as a bar on a terminal and a line every 2 s otherwise. Returns
 * a pass-through stream that counts, and `done()` to finish the display.
 */
export function byteProgress(ctx: Ctx, what: string): { counter: Transform; bytes(): number; done(): void } {
  const { io } = ctx;
  const started = Date.now();
  let bytes = 0;
  let lastLine = started;
  const tty = Boolean(io.stderr.isTTY);
  const bar = tty
    ? new cliProgress.SingleBar(
        { stream: io.stderr, format: `${what}: {size} | {elapsed}`, hideCursor: true, fps: 5 },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(1, 0, { size: iec(0), elapsed: '0s' });
  const counter = new Transform({
    transform(chunk: Buffer, _enc, next) {
      bytes += chunk.length;
      const now = Date.now();
      bar?.update(0, { size: iec(bytes), elapsed: duration(now - started) });
      if (!tty && now - lastLine >= 2000) {
        lastLine = now;
        io.stderr.write(`${what}: ${iec(bytes)}, ${duration(now - started)}\n`);
      }
      next(null, chunk);
    },
  });
  return {
    counter,
    bytes: () => bytes,
    done() {
      bar?.update(0, { size: iec(bytes), elapsed: duration(Date.now() - started) });
      bar?.stop();
    },
  };
}
