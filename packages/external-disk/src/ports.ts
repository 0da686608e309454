import type { AppError, Clock, CommandRunner, InventoryReader } from '@appliance/common';
import type { NewExternalDiskRow } from './core/check-register.ts';
import type { FormatStep } from './core/commands.ts';
import type { ArraySlotIdentity, ExternalDiskRow, ExternalFilesystem } from './core/types.ts';
import type { ToolCheck } from './node/tools.ts';

/** Structured log lines (the tools' stderr goes here, never to the client). */
export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Try-only per-key locks shared by every operation that writes a disk (07 §6.5). Held keys answer
 * at once with `busy()`; nothing ever waits. The server's `KeyedLocks` has this shape.
 */
export interface DiskLocks {
  tryRun<T>(keys: string | string[], busy: () => AppError, fn: () => Promise<T>): Promise<T>;
}

/** What one format attempt that reached the first `wipefs` leaves in the database (07 §6.6). */
export interface FormatRecord {
  /** The registered row to update, or null to insert one for a candidate. */
  rowId: number | null;
  label: string;
  /** Identity and filesystem columns to store (`filesystem`/`fsUuid` null after a failed step). */
  columns: Omit<NewExternalDiskRow, 'label' | 'backupDestination'>;
  /** Now on success, null after a failure. */
  formattedAt: string | null;
  /** Audit row: `disks.external.format`, target = label. */
  audit: {
    at: string;
    outcome: 'ok' | 'failed';
    details: { device: string; filesystem: ExternalFilesystem; step?: FormatStep };
  };
}

/**
 * The database side of external disks (owned by the server). Each write method runs ONE
 * transaction that also holds its audit row.
 */
export interface ExternalDiskStore {
  listRows(): Promise<ExternalDiskRow[]>;
  listArraySlots(): Promise<ArraySlotIdentity[]>;
  /** Inserts a registration and its audit row (`disks.external.register`). A label taken in the
   * meantime (unique, case-insensitive) throws `409 external_disk_exists`. */
  insertRegistration(row: NewExternalDiskRow, at: string): Promise<ExternalDiskRow>;
  /** Updates or inserts the row of a format attempt and writes its audit row. */
  recordFormat(record: FormatRecord): Promise<ExternalDiskRow>;
}

/** Everything a format needs; the server builds this from its context. */
export interface ExternalDiskDeps {
  inventory: InventoryReader;
  store: ExternalDiskStore;
  runner: CommandRunner;
  locks: DiskLocks;
  tools: ToolCheck;
  clock: Clock;
  log: Log;
  /** Resolves symlinks of a device path (fs.realpath through the host paths). */
  realpath(path: string): Promise<string>;
}
