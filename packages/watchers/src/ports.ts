/**
 * What the watcher loops need from outside, as small ports: the conditions (raise once, record the
 * clear: `Conditions` of `@appliance/jobs` fits), a clock, timers and a logger. The facts each
 * watcher reads arrive through the ports of its definition (`src/watchers/*.ts`).
 */
import type { Decision, HeldCondition } from './core/model.ts';

/** The conditions the loops apply their decisions to. */
export interface ConditionsPort {
  /** The conditions holding now under these key prefixes. */
  holding(prefixes?: readonly string[]): HeldCondition[];
  /** Applies one cycle's decision (onsets raised once, clears recorded); `source` is the watcher. */
  apply(source: string, decision: Decision): Promise<{ raised: number; cleared: number }>;
}

/** One-shot timers; a pending one must not keep the process alive. */
export interface WatcherTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WatcherClock {
  /** Wall time: a cycle's `lastRunAt`, a failure's `since`. */
  now(): Date;
  /** Milliseconds on a monotonic clock, for a cycle's duration (default `performance.now`). */
  monotonicMs?(): number;
}

export interface WatcherLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface RunnerPorts {
  conditions: ConditionsPort;
  clock: WatcherClock;
  logger: WatcherLogger;
  timers: WatcherTimers;
}
