/**
 * What the channel operations and the delivery queue need from their host: the channel rows (the
 * host seals secrets and writes each change with its audit row in one transaction), the host name
 * messages carry, and a clock. The api-server implements them over SQLite; tests pass
 * `createMemoryChannelStore()` (test-support).
 */
import type { AuditEntry } from '@appliance/common';
import type { ChannelWrite, StoredChannel } from '../core/channels.ts';
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

/** The audit row a change writes, from the row as written (the operations shape it). */
export type ChannelAudit = (row: ChannelRecord) => AuditEntry;

/** One store per request: its writes are audited as the request's actor. */
export interface ChannelStore {
  /** Channels by lowercase name, then id. */
  list(): Promise<ChannelRecord[]>;
  get(id: string): Promise<ChannelRecord | null>;
  /** The opened secret of a channel, or null. */
  openSecret(id: string): Promise<string | null>;
  /**
   * Inserts a channel with a new id and the audit row `audit` makes of it; null, writing nothing,
   * when another channel has the name (ignoring case).
   */
  insert(write: ChannelWrite, audit: ChannelAudit): Promise<ChannelRecord | null>;
  /**
   * In one transaction: re-reads the row (`not_found` when gone), runs `check` on it, refuses a name
   * taken by another channel (`name_taken`), writes the change and the audit row of the new row.
   */
  update(
    id: string,
    write: ChannelWrite,
    check: (fresh: StoredChannel) => void,
    audit: ChannelAudit,
  ): Promise<ChannelRecord | 'not_found' | 'name_taken'>;
  /**
   * Deletes the channel, its routes and queued deliveries with the audit row of the deleted row;
   * false when gone.
   */
  remove(id: string, audit: ChannelAudit): Promise<boolean>;
  /** Writes one audit row (a test send's) in its own write job. */
  audit(entry: AuditEntry): Promise<void>;
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
