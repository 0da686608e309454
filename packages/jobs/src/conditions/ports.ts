/**
 * What the conditions need from outside: a store of condition rows with atomic writes, an event
 * sink that raises an onset (inside the write, so the alert commits with the rows, or after it),
 * a wall clock and a logger. The server supplies SQLite and its notifications; `MemoryConditionStore`
 * keeps them in memory (a daemon without a database, the tests).
 */
import type { Condition } from './model.ts';

/** A condition as stored, holding now or cleared. */
export interface StoredCondition {
  key: string;
  eventType: string;
  /** Who reported it: a watcher's name, or the feature (`parity`, `reported`). */
  source: string;
  subject: string;
  value: string | null;
  title: string;
  message: string;
  /** RFC 3339 UTC: when it started. */
  since: string;
}

/** One atomic write of the store (`Tx` is the store's own transaction handle, given to the sink). */
export interface ConditionWrite<Tx> {
  readonly tx: Tx;
  /** Whether `key` holds now (read inside the write: two reporters of one key raise it once). */
  holds(key: string): boolean;
  /** Records an onset; `alertId` is what the sink raised with it (null: raised after the commit). */
  insert(row: StoredCondition, at: string, alertId: number | null): void;
  /** A holding condition's new value, message, title and subject. */
  update(condition: Condition, at: string): void;
  /** Records the end of a holding condition; false when `key` was not holding. */
  clear(key: string, at: string): boolean;
  /** Deletes conditions cleared before `before` (RFC 3339). */
  pruneCleared(before: string): void;
}

export interface ConditionStore<Tx = unknown> {
  /** Every condition holding now, oldest first (a synchronous read). */
  holding(): StoredCondition[];
  /** Runs `fn` as one atomic write; rejects (nothing written) when it throws. */
  write<T>(fn: (w: ConditionWrite<Tx>) => T): Promise<T>;
}

/** The event an onset raises: one per group of onsets (see `groupOnsets`). */
export interface RaisedEvent {
  eventType: string;
  title: string;
  message: string;
}

export interface ConditionEvents<Tx = unknown> {
  /**
   * Called inside the write for each event to raise. `alertId` is recorded with the condition
   * rows (null when the alert is not written in this transaction); `afterCommit` runs once the
   * write committed (push the alert, wake a delivery, or raise it only now). A failure of
   * `afterCommit` is logged, never thrown at the reporter.
   */
  raise(tx: Tx, event: RaisedEvent): { alertId: number | null; afterCommit?: () => void | Promise<void> };
}

export interface ConditionsLogger {
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface ConditionPorts<Tx = unknown> {
  store: ConditionStore<Tx>;
  events: ConditionEvents<Tx>;
  /** Wall time: `since`, the clears, the retention of cleared conditions. */
  clock: { now(): Date };
  logger: ConditionsLogger;
}
