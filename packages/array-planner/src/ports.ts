/**
 * What the disk jobs and the array operations need from outside, as small ports. The server
 * supplies SQLite stores, its locks, the drift watcher's record and @appliance/parity's snapraid
 * (`packages/api-server/src/features/disks/deps.ts`); the package's own test support supplies
 * in-memory ones (`src/test-support/memory.ts`).
 */
import type {
  AppError,
  Clock,
  CommandRunner,
  DiskInventoryEntry,
  HostPaths,
  InventoryReader,
} from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import type { ArraySlot, ExternalDiskRecord, RemovalState } from './core/types.ts';
import type { FormattedMember } from './node/array-setup.ts';

/** Structured log lines (the tools' stderr goes here, never to the client). */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Try-only per-key locks shared by every operation that writes a disk (the server's `KeyedLocks`). */
export interface DiskLocks {
  isHeld(key: string): boolean;
  tryRun<T>(keys: string | string[], busy: () => AppError, fn: () => Promise<T>): Promise<T>;
}

/** What the service wrote, for the drift watcher: `recordQuietly(realPath)` after writing one. */
export interface GeneratedFiles {
  recordQuietly(real: string, written?: string): void;
  forget(real: string): Promise<void>;
}

/** The switch of a slot onto its new disk, with the details of its audit row (`disks.array.switch`). */
export interface SlotSwitch {
  slotId: number;
  /** The slot's row after the switch. */
  next: ArraySlot;
  /** The audit row's target (the slot's mountpoint before the switch). */
  target: string;
  details: Record<string, unknown>;
}

/** The array's rows (owned by the server: `array_disks`, `array_settings`, `external_disks`). */
export interface SlotStore {
  /** Every slot, ordered parity, data, cache, then by role index. */
  listSlots(): ArraySlot[];
  listExternals(): (ExternalDiskRecord & { device: string })[];
  /** The array's settings, or null before the array is set up. */
  readSettings(): { createPolicy: string } | null;
  /** Records the switch and its audit row in ONE transaction. */
  recordSwitch(change: SlotSwitch): Promise<void>;
}

/** The array's settings row as the operations read it (`array_settings`). */
export interface ArraySettings {
  createPolicy: string;
  migrationPending: boolean;
  migrationPendingSince: string | null;
  /** When the array was set up (ISO). */
  createdAt: string;
}

/** One transaction over the array's rows: reads, writes and the audit row commit together. */
export interface ArrayTx<A> {
  /** Every slot, ordered parity, data, cache, then by role index. */
  slots(): ArraySlot[];
  settings(): ArraySettings | null;
  /** The new array's rows and its settings (no migration pending). */
  insertArray(members: FormattedMember[], createPolicy: string, createdAt: string): void;
  setRemovalState(slotId: number, state: RemovalState | null): void;
  setMigration(pending: boolean, since: string | null): void;
  audit(
    actor: A | null,
    entry: { operation: string; target: string; details?: Record<string, unknown> },
  ): void;
}

/** The array's records the API changes (owned by the server: `array_disks`, `array_settings`, `audit_log`). */
export interface ArrayRecords<A> {
  settings(): ArraySettings | null;
  /** Runs `fn` in ONE transaction; a throw writes nothing. */
  transaction<T>(fn: (tx: ArrayTx<A>) => T): Promise<T>;
}

/** A SnapRAID run's outcome (the shape of @appliance/parity's `SnapraidRun`). */
export interface SnapraidRun {
  exitCode: number;
  cancelled: boolean;
  errorLine: string | null;
  progress: { bytesDone: number } | null;
}

/** What `fix` / `check` found (the shape of @appliance/parity's `FixFindings`). */
export interface FixFindings {
  dataErrors: number;
  ioErrors: number;
  fileErrors: number;
  files: Array<{ disk: string; path: string }>;
  recovered: string[];
  unrecoverable: string[];
}

/** A record of snapraid's log (`diff` reads its `scan` records). */
export interface SnapraidRecord {
  kind: string;
  change?: string;
  disk?: string;
  path?: string;
}

/** Where a run's output, process id and progress go (a job's handlers). */
export interface SnapraidHandlers {
  signal?: AbortSignal;
  onOutput?: (line: string) => void;
  onSpawn?: (pid: number) => void;
  onProgress?: (progress: {
    percent: number;
    bytesDone: number;
    bytesTotal: number | null;
    etaSeconds: number | null;
  }) => void;
}

/** SnapRAID over one configuration file (@appliance/parity's `createSnapraid` has this shape). */
export interface SnapraidTool {
  diff(h: SnapraidHandlers & { onRecord?: (record: SnapraidRecord) => void }): Promise<{ run: SnapraidRun }>;
  fix(o: { disk: string }, h: SnapraidHandlers): Promise<{ run: SnapraidRun; findings: FixFindings }>;
  check(
    o: { disk?: string; auditOnly?: boolean },
    h: SnapraidHandlers,
  ): Promise<{ run: SnapraidRun; findings: FixFindings }>;
}

/** What a sync of the array did (the parity sync's outcome). */
export interface SyncOutcome {
  changes: unknown;
  reason: string;
  bytes: number;
  metadata: unknown;
}

/** The parity side of the array: its sync (with the deletion guard) and its recorded diff. */
export interface ParityControl {
  /**
   * One sync of the array under the job's phase `phase` (diff → the deletion guard, a block throws
   * `JobBlocked` → sync → the data disks' metadata); `onlyIfChanged` stops after the diff when it
   * found nothing. Resolves null when cancelled.
   */
  sync(
    job: JobHandle,
    o: { phase: 'presync' | 'sync'; onlyIfChanged?: boolean },
  ): Promise<SyncOutcome | null>;
  /** The last recorded diff (files added or updated since the last sync), or null. */
  lastDiff(): { changes: boolean; paths: { added: string[]; updated: string[] } } | null;
}

/** Everything a disk job needs; the server builds this from its context. */
export interface DiskJobPorts {
  paths: HostPaths;
  runner: CommandRunner;
  inventory: InventoryReader;
  slots: SlotStore;
  /** SnapRAID over a configuration file (the array's, or the job's own). */
  snapraid(configFile: string): SnapraidTool;
  parity: ParityControl;
  locks: DiskLocks;
  generated: GeneratedFiles;
  clock: Clock;
  log: Log;
  /** Lab mode: no boot-persistent mount units; the crash tests' pause points (`<state>/lab-pause`). */
  labMode: boolean;
}

export type { DiskInventoryEntry };
