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
   * A progress reporter for one long operation: at most 4 events per second, and always a final
   * `done: true` event from `finish`.
   */
  progress(operationId: string, operation: string, target: string, minIntervalMs = 250) {
    let last = 0;
    return {
      update: (progress: Record<string, unknown>, now = Date.now()) => {
        if (now - last < minIntervalMs) return;
        last = now;
        this.publish({ type: 'progress', data: { operationId, operation, target, done: false, progress } });
      },
      finish: (progress: Record<string, unknown>) => {
        this.publish({ type: 'progress', data: { operationId, operation, target, done: true, progress } });
      },
    };
  }
}
