/**
 * What the channel operations and the delivery queue need from their host: the channel rows (the
 * host seals secrets and writes each change with its audit row in one transaction), the host name
 * messages carry, and a clock. The api-server implements them over SQLite; tests pass
 * `createMemoryChannelStore()` (test-support).
 */
import type { AuditEntry } from '@appliance/common';
import type { ChannelWrite, SecretChange } from '../core/channels.ts';
import type { Severity } from '../core/catalog.ts';
import type { DeliveryOutcome } from '../core/retry.ts';

/** A channel row: its stored configuration as text (a test send reads it defensively). */
export interface ChannelRecord {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  /** The configuration as stored (JSON text). */
  config: string;
  hasSecret: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * The channel rows inside one write job of the host: synchronous, one transaction (a throw rolls
 * it back). `insert` and `update` store the secret the job was opened with.
 */
export interface ChannelTx {
  get(id: string): ChannelRecord | null;
  /** Whether a channel other than `exceptId` has this name, ignoring case. */
  nameTaken(name: string, exceptId: string | null): boolean;
  /** Inserts a channel with a new id. */
  insert(write: ChannelWrite): ChannelRecord;
  /** Replaces the row's fields (the secret only when the job's change is not `keep`). */
  update(id: string, write: ChannelWrite): ChannelRecord;
  /** Deletes the channel with its routes and queued deliveries. */
  remove(id: string): void;
  /** An audit row of the request's actor, in the same transaction. */
  audit(entry: AuditEntry): void;
}

/** One store per request: its writes are audited as the request's actor. */
export interface ChannelStore {
  /** Channels by lowercase name, then id. */
  list(): Promise<ChannelRecord[]>;
  get(id: string): Promise<ChannelRecord | null>;
  /** The opened secret of a channel, or null. */
  openSecret(id: string): Promise<string | null>;
  /**
   * Runs `job` as one write job. A secret to set is sealed before the job (CPU only, outside the
   * writer); `clear` stores none; `keep` (the default) leaves the stored one.
   */
  write<T>(job: (tx: ChannelTx) => T, secret?: SecretChange): Promise<T>;
}

export interface ChannelDeps {
  store: ChannelStore;
  /** The settings hostname (08 §7.4 `host`). */
  hostName(): string;
  clock: { now(): Date };
}

/** A `pending` delivery that is due, as the host reads it (before any decision). */
export interface DueRow {
  id: number;
  attempts: number;
  channel: { enabled: boolean; type: string; config: string };
  /** Opens the channel's secret (null when none); may throw when it cannot be opened. */
  openSecret(): string | null;
  alert: {
    eventType: string;
    severity: Severity | string;
    title: string;
    message: string;
    occurredAt: string;
  };
}

/** The `notify_deliveries` queue as the host stores it. */
export interface DeliveryRows {
  /** `pending` rows due at or before `now`, oldest first, at most `limit`. */
  due(now: string, limit: number): Promise<DueRow[]> | DueRow[];
  /** Stores these outcomes in one write job. */
  recordAll(outcomes: { id: number; outcome: DeliveryOutcome }[], at: string): Promise<void>;
  /** Stores the outcome of one attempt. */
  record(id: number, outcome: DeliveryOutcome, at: string): Promise<void>;
  hostName(): string;
}
