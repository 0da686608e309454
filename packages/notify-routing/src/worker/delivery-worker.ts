import type { Clock } from '@appliance/common';
import type { ChannelConfig } from '../core/channel-config.ts';
import type { NotificationMessage } from '../core/message.ts';
import { ATTEMPT_TIMEOUT_MS, afterAttempt, type DeliveryOutcome, WORKER_INTERVAL_MS } from '../core/retry.ts';
import type { ChannelSender } from '../node/send.ts';
import { defaultTimeoutProvider, type TimeoutProvider } from './timers.ts';

/** A queued delivery that is due, with what it takes to send it. */
export interface DueDelivery {
  id: number;
  /** Attempts already made. */
  attempts: number;
  channel: ChannelConfig;
  /** The opened secret, or null. */
  secret: string | null;
  message: NotificationMessage;
}

/** The queue port (`notify_deliveries`), implemented in api-server. */
export interface DeliveryQueueStore {
  /** `pending` rows whose next attempt is at or before `now`, oldest first. */
  due(now: Date, limit: number): Promise<DueDelivery[]> | DueDelivery[];
  /** Store the outcome of one attempt. */
  record(id: number, outcome: DeliveryOutcome, at: Date): Promise<void> | void;
}

export interface DeliveryWorkerOptions {
  store: DeliveryQueueStore;
  send: ChannelSender;
  clock: Clock;
  timers?: TimeoutProvider;
  intervalMs?: number;
  attemptTimeoutMs?: number;
  batchSize?: number;
  /** Called when a tick fails as a whole (e.g. the database is gone); the worker keeps running. */
  onError?: (error: unknown) => void;
}

export interface TickSummary {
  delivered: number;
  retried: number;
  failed: number;
}

/**
 * Sends due deliveries every 30 s (08 §7.4). One tick runs at a time; `wake()` runs one soon (after a
 * raise) without waiting for the interval.
 */
export class DeliveryWorker {
  private readonly timers: TimeoutProvider;
  private readonly intervalMs: number;
  private handle: unknown;
  private running: Promise<TickSummary> | null = null;
  private started = false;
  /** A tick was asked for while one ran. */
  private again = false;
  /** The last tick filled its batch: more rows may be due. */
  private full = false;
  private readonly options: DeliveryWorkerOptions;

  constructor(options: DeliveryWorkerOptions) {
    this.options = options;
    this.timers = options.timers ?? defaultTimeoutProvider;
    this.intervalMs = options.intervalMs ?? WORKER_INTERVAL_MS;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  stop(): Promise<unknown> {
    this.started = false;
    this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    return this.running ?? Promise.resolve();
  }

  /** Run a tick at the next opportunity (used after an event is raised). */
  wake(): void {
    if (this.started) this.schedule(0);
  }

  /**
   * Send every due delivery once. A call while a tick runs shares it and asks for another pass right
   * after it (rows queued meanwhile are not left waiting for the interval).
   */
  tick(): Promise<TickSummary> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.runTick().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private schedule(delayMs: number): void {
    this.timers.clearTimeout(this.handle);
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      void this.tick()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          if (!this.started || this.handle !== undefined || this.running) return;
          const soon = this.again || this.full;
          this.again = false;
          this.schedule(soon ? 0 : this.intervalMs);
        });
    }, delayMs);
  }

  private async runTick(): Promise<TickSummary> {
    const { store, send, clock } = this.options;
    const summary: TickSummary = { delivered: 0, retried: 0, failed: 0 };
    const batchSize = this.options.batchSize ?? 50;
    const due = await store.due(clock.now(), batchSize);
    this.full = due.length >= batchSize;
    await Promise.all(
      due.map(async (delivery) => {
        const result = await send(
          delivery.channel,
          delivery.secret,
          delivery.message,
          this.options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
        );
        const at = clock.now();
        const outcome = afterAttempt(delivery.attempts + 1, at, result);
        await store.record(delivery.id, outcome, at);
        if (outcome.status === 'delivered') summary.delivered++;
        else if (outcome.status === 'failed') summary.failed++;
        else summary.retried++;
      }),
    );
    return summary;
  }
}
