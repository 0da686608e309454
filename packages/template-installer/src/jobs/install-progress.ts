/**
 * Progress events (08 §12) of a template install: one event per step the installer reports, in
 * order, at most 4 a second, then one `done: true` event. Nothing is published before the first
 * step, and the installer reports steps only once every check passed, so a refused install
 * publishes none.
 *
 * An install's steps take milliseconds except the compose tool's check, so throttling by dropping
 * would lose most of them; here the events are queued and spaced instead; `finish` resolves once
 * the last one is published (at most a second later). A caller need not wait for it: the answer is
 * never delayed by the pacing, and the `done` event may follow it (a client watching the events
 * waits for `done`).
 */
import type { InstallStep } from '../node/installer.ts';

export const INSTALL_OPERATION = 'template.install';

/** One progress event's data, as the server's event bus carries it (`type: 'progress'`). */
export interface InstallProgressData {
  operationId: string;
  operation: string;
  target: string;
  done: boolean;
  progress: Record<string, unknown>;
}

export interface StepProgress {
  onStep: (step: InstallStep, index: number, count: number) => void;
  finish: (ok: boolean) => Promise<void>;
}

/** The ports: where an event goes, and a fresh operation id. */
export interface ProgressSink {
  publish(data: InstallProgressData): void;
  uuid(): string;
}

export function installProgress(sink: ProgressSink, target: string, minIntervalMs = 250): StepProgress {
  let operationId: string | null = null;
  let queue: Promise<void> = Promise.resolve();
  let lastAt = Number.NEGATIVE_INFINITY;
  let last: Record<string, unknown> = {};
  const publish = (done: boolean, progress: Record<string, unknown>) => {
    operationId ??= sink.uuid();
    const data = { operationId, operation: INSTALL_OPERATION, target, done, progress };
    queue = queue.then(async () => {
      const wait = lastAt + minIntervalMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastAt = Date.now();
      sink.publish(data);
    });
  };
  return {
    onStep(step, index, count) {
      last = { step, stepIndex: index + 1, steps: count };
      publish(false, last);
    },
    async finish(ok) {
      if (operationId === null) return; // refused: nothing was published
      publish(true, ok ? { ...last, stepIndex: last['steps'], ok } : { ...last, ok });
      await queue;
    },
  };
}
