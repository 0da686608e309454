/** The service's in-process event bus: notifications and throttled progress, for `GET /events` (08 §12). */
import { EventEmitter } from 'node:events';

export type ServerEvent =
  | { type: 'notification'; id: number; data: Record<string, unknown> }
  | { type: 'progress'; data: ProgressData };

export interface ProgressData {
  operationId: string;
  operation: string;
  target: string;
  done: boolean;
  progress: Record<string, unknown>;
}

/** In-process publish/subscribe for `GET /events` (08 §12). No replay. */
export class EventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  publish(event: ServerEvent): void {
    this.emitter.emit('event', event);
  }
  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
  get subscribers(): number {
    return this.emitter.listenerCount('event');
  }

  /**
   * A progress reporter for one long operation: at most 4 events per second, the latest update
   * of a busy window published at its end (a burst of lines never leaves the bar behind until the
   * next one), and always a final `done: true` event from `finish`, which drops a pending update.
   */
  progress(operationId: string, operation: string, target: string, minIntervalMs = 250) {
    let last = Number.NEGATIVE_INFINITY;
    let pending: Record<string, unknown> | null = null;
    let timer: NodeJS.Timeout | undefined;
    const send = (progress: Record<string, unknown>, done: boolean) =>
      this.publish({ type: 'progress', data: { operationId, operation, target, done, progress } });
    const flush = () => {
      timer = undefined;
      if (pending === null) return;
      last = Date.now();
      send(pending, false);
      pending = null;
    };
    return {
      update: (progress: Record<string, unknown>, now = Date.now()) => {
        const wait = minIntervalMs - (now - last);
        if (wait <= 0) {
          clearTimeout(timer);
          timer = undefined;
          pending = null;
          last = now;
          send(progress, false);
          return;
        }
        pending = progress;
        if (timer === undefined) {
          timer = setTimeout(flush, wait);
          timer.unref();
        }
      },
      finish: (progress: Record<string, unknown>) => {
        clearTimeout(timer);
        timer = undefined;
        pending = null;
        send(progress, true);
      },
    };
  }
}
