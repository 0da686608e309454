import type { AppError, Clock, CommandRunner, InventoryReader } from '@appliance/common';
import type { NewExternalDiskRow } from './core/check-register.ts';
import type { FormatStep } from './core/commands.ts';
import type { ArraySlotIdentity, ExternalDiskRow, ExternalFilesystem } from './core/types.ts';

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

/** What a format stores right before its first write (07 §6.6; crash safety, issue 9). */
export interface FormatStart {
  /** The registered row to update, or null to insert one for a candidate. */
  rowId: number | null;
  label: string;
  /** The disk's identity columns; `filesystem` and `fsUuid` are stored as null. */
  columns: Omit<NewExternalDiskRow, 'label' | 'backupDestination' | 'filesystem' | 'fsUuid'>;
  /** `created_at` of a candidate's new row. */
  at: string;
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
  /**
   * Right before the first `wipefs`: stores the row with `filesystem` and `fs_uuid` null (inserted
   * for a candidate; `formatted_at` unchanged), without an audit row, and returns its id. A crash
   * during the writes then leaves a row that claims no filesystem the disk may no longer hold and
   * that still names the disk (a weak row without a UUID matches by device and size, 07 §2.3), so
   * the format can be run again. The crash tests of issue 9 found the old filesystem and UUID left
   * in the row, the row no longer matching the wiped disk, and the label answering 404.
   */
  recordFormatStart(start: FormatStart): Promise<number>;
  /** Updates or inserts the row of a format attempt and writes its audit row. */
  recordFormat(record: FormatRecord): Promise<ExternalDiskRow>;
}

/** Everything a format needs; the server builds this from its context. */
export interface ExternalDiskDeps {
  inventory: InventoryReader;
  store: ExternalDiskStore;
  /** Runs every command and answers which tools are installed (`resolve`: the same lookup). */
  runner: CommandRunner;
  locks: DiskLocks;
  clock: Clock;
  log: Log;
  /** Resolves symlinks of a device path (fs.realpath through the host paths). */
  realpath(path: string): Promise<string>;
  /**
   * Optional: keeps a read-only handle on the disk for the duration of the format and returns its
   * release. Linux drops a block device's cached blocks when its last opener closes it, so without
   * a holder every `blkid` and `wipefs` of the format (the inventory probe, the direct probes, the
   * wipe's own probe, the UUID read-back) re-reads the disk: on a blank 1 GiB loop disk here a cold
   * probe takes 60–120 ms, a warm one under 10. Writes through the device keep the cache coherent.
   * Best effort: a device that cannot be opened is simply not held.
   */
  holdDevice?(device: string): () => void;
  /**
   * Optional: called before each command of the format runs (the first call is right before the
   * first write), for progress reports: step `index + 1` of `count`.
   */
  onStep?(step: FormatStep, index: number, count: number): void;
}
