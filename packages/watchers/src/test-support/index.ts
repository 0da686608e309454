/**
 * Test support of the watcher loops: a clock and timers that move only when the test says so.
 * The conditions in memory are `Conditions` over `MemoryConditionStore` of `@appliance/jobs`.
 */
import type { WatcherClock, WatcherTimers } from '../ports.ts';

/** A wall clock, a monotonic clock and one-shot timers that move only with `advance`. */
export class ManualClock implements WatcherClock, WatcherTimers {
  private ms: number;
  private next = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  constructor(start = '2026-01-01T00:00:00.000Z') {
    this.ms = Date.parse(start);
  }

  now = (): Date => new Date(this.ms);
  monotonicMs = (): number => this.ms;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.next++;
    this.pending.set(id, { at: this.ms + ms, fn });
    return id;
  };
  clearTimeout = (handle: unknown): void => {
    this.pending.delete(handle as number);
  };

  /** The delays from now of the timers pending, soonest first. */
  delays(): number[] {
    return [...this.pending.values()].map((p) => p.at - this.ms).sort((a, b) => a - b);
  }

  /** Lets promises settle (a cycle's awaits). */
  async settle(): Promise<void> {
    for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
  }

  /** Moves time forward by `ms`, firing the timers due on the way (and letting each settle). */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, p]) => p.at <= end)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.ms = due[1].at;
      due[1].fn();
      await this.settle();
    }
    this.ms = end;
    await this.settle();
  }
}
