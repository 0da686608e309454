/**
 * Progress events (08 §12) of a template install: one event per step the installer reports, in
 * order, at most 4 a second, then one `done: true` event. Nothing is published before the first
 * step, and the installer reports steps only once every check passed, so a refused install
 * publishes none.
 *
 * An install's steps take milliseconds except the compose tool's check, so throttling by dropping
 * (as `ctx.events.progress` does for counters) would lose most of them; here the events are queued
 * and spaced instead; `finish` resolves once the last one is published (at most a second later).
 * The route does not wait for it: the answer is never delayed by the pacing, and the `done` event
 * may follow it (a client watching the events waits for `done`).
 */
import type { InstallStep } from '@appliance/template-installer';
import type { AppContext } from '../../context.ts';

export const INSTALL_OPERATION = 'template.install';

export interface StepProgress {
  onStep: (step: InstallStep, index: number, count: number) => void;
  finish: (ok: boolean) => Promise<void>;
}

export function installProgress(
  ctx: Pick<AppContext, 'events' | 'random'>,
  target: string,
  minIntervalMs = 250,
): StepProgress {
  let operationId: string | null = null;
  let queue: Promise<void> = Promise.resolve();
  let lastAt = Number.NEGATIVE_INFINITY;
  let last: Record<string, unknown> = {};
  const publish = (done: boolean, progress: Record<string, unknown>) => {
    operationId ??= ctx.random.uuid();
    const data = { operationId, operation: INSTALL_OPERATION, target, done, progress };
    queue = queue.then(async () => {
      const wait = lastAt + minIntervalMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastAt = Date.now();
      ctx.events.publish({ type: 'progress', data });
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
