/**
 * In-memory ports for running the disk jobs without the server: the array's rows in memory,
 * try-only locks, a record of the files written, and a parity control that runs `snapraid diff` /
 * `sync` directly (no deletion guard, no metadata save). Used by the package's system test and its
 * README's first example.
 */
import { AppError, type DiskInventoryEntry } from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import type { ArraySetupPlan } from '../core/array-setup.ts';
import type { ArraySetupResult, FormattedMember } from '../node/array-setup.ts';
import { inSlotOrder } from '../core/slots.ts';
import type { ArraySlot } from '../core/types.ts';
import type {
  ArrayRecords,
  ArraySettings,
  ArrayTx,
  DiskLocks,
  GeneratedFiles,
  Log,
  ParityControl,
  SlotStore,
  SlotSwitch,
  SnapraidHandlers,
  SnapraidRun,
  SyncOutcome,
} from '../ports.ts';

/** The array's rows in memory (`array_disks`, `array_settings`; no external disks). */
export class MemorySlotStore implements SlotStore {
  rows: ArraySlot[] = [];
  settings: { createPolicy: string } | null = null;
  readonly switches: SlotSwitch[] = [];

  listSlots(): ArraySlot[] {
    return inSlotOrder(structuredClone(this.rows));
  }
  listExternals() {
    return [];
  }
  readSettings() {
    return this.settings;
  }
  async recordSwitch(change: SlotSwitch): Promise<void> {
    this.rows = this.rows.map((r) => (r.id === change.slotId ? { ...change.next, id: r.id } : r));
    this.switches.push(change);
  }
  /** Records a set-up array (what the server's store writes after `setupArray`). */
  recordArray = async (setup: { plan: ArraySetupPlan; result: ArraySetupResult }): Promise<void> => {
    if (this.rows.length > 0) throw new AppError(409, 'array_exists', 'An array is already set up.');
    this.rows = setup.result.members.map((m, i) => slotOf(i + 1, m, m.entry));
    this.settings = { createPolicy: setup.plan.createPolicy };
  };
}

function slotOf(id: number, m: FormattedMember, entry: DiskInventoryEntry): ArraySlot {
  return {
    id,
    role: m.role,
    roleIndex: m.roleIndex,
    device: m.device,
    filesystem: m.filesystem,
    fsUuid: m.fsUuid,
    wwn: entry.wwn,
    serial: entry.serial,
    byIdName: entry.byIdName,
    weakIdentity: entry.weakIdentity,
    sizeBytes: entry.sizeBytes,
    mountpoint: m.mountpoint,
    removalState: null,
  };
}

/** One audit row an array operation wrote. */
export interface AuditRow<A> {
  actor: A | null;
  operation: string;
  target: string;
  details?: Record<string, unknown>;
}

/**
 * The array's records in memory over a `MemorySlotStore` (settings and the audit rows kept here):
 * a transaction that throws leaves rows, settings and audit rows as they were.
 */
export class MemoryArrayRecords<A = string> implements ArrayRecords<A> {
  row: ArraySettings | null = null;
  readonly audit: AuditRow<A>[] = [];
  private readonly store: MemorySlotStore;
  constructor(store: MemorySlotStore) {
    this.store = store;
  }

  settings(): ArraySettings | null {
    return this.row && { ...this.row };
  }

  async transaction<T>(fn: (tx: ArrayTx<A>) => T): Promise<T> {
    const before = { rows: structuredClone(this.store.rows), row: this.row, audit: this.audit.length };
    try {
      return fn(this.tx());
    } catch (err) {
      this.store.rows = before.rows;
      this.row = before.row;
      this.store.settings = before.row && { createPolicy: before.row.createPolicy };
      this.audit.length = before.audit;
      throw err;
    }
  }

  private tx(): ArrayTx<A> {
    const store = this.store;
    return {
      slots: () => store.listSlots(),
      settings: () => this.settings(),
      insertArray: (members, createPolicy, createdAt) => {
        store.rows = members.map((m, i) => slotOf(i + 1, m, m.entry));
        store.settings = { createPolicy };
        this.row = { createPolicy, migrationPending: false, migrationPendingSince: null, createdAt };
      },
      setRemovalState: (slotId, state) => {
        store.rows = store.rows.map((r) => (r.id === slotId ? { ...r, removalState: state } : r));
      },
      setMigration: (pending, since) => {
        if (this.row) this.row = { ...this.row, migrationPending: pending, migrationPendingSince: since };
      },
      audit: (actor, entry) => {
        this.audit.push({ actor, ...entry });
      },
    };
  }
}

/** Try-only per-key locks (the server's `KeyedLocks` in small). */
export class MemoryLocks implements DiskLocks {
  private readonly held = new Set<string>();
  isHeld(key: string): boolean {
    return this.held.has(key);
  }
  async tryRun<T>(keys: string | string[], busy: () => AppError, fn: () => Promise<T>): Promise<T> {
    const list = Array.isArray(keys) ? keys : [keys];
    if (list.some((k) => this.held.has(k))) throw busy();
    for (const k of list) this.held.add(k);
    try {
      return await fn();
    } finally {
      for (const k of list) this.held.delete(k);
    }
  }
}

/** The files the jobs said they wrote (the server's drift watcher record). */
export class RecordedFiles implements GeneratedFiles {
  readonly written = new Set<string>();
  recordQuietly(real: string): void {
    this.written.add(real);
  }
  async forget(real: string): Promise<void> {
    this.written.delete(real);
  }
}

/** A log that keeps its lines (and prints errors). */
export class MemoryLog implements Log {
  readonly lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  info = (message: string, fields?: Record<string, unknown>) => this.push('info', message, fields);
  warn = (message: string, fields?: Record<string, unknown>) => this.push('warn', message, fields);
  error = (message: string, fields?: Record<string, unknown>) => this.push('error', message, fields);
  private push(level: string, message: string, fields?: Record<string, unknown>) {
    this.lines.push({ level, message, ...(fields ? { fields } : {}) });
  }
}

/** What the direct parity control needs of a snapraid adapter (@appliance/parity's `createSnapraid`). */
export interface SyncingSnapraid {
  diff(h: SnapraidHandlers): Promise<{ run: SnapraidRun; diff: RecordedDiff & { changes: boolean } }>;
  sync(h: SnapraidHandlers): Promise<{ run: SnapraidRun }>;
}

type RecordedDiff = { changes: boolean; paths: { added: string[]; updated: string[] } };

/**
 * The array's sync run directly (diff, then sync when it found something or always): no deletion
 * guard and no metadata save, which the server's parity feature adds.
 */
export class DirectParity implements ParityControl {
  last: RecordedDiff | null = null;
  private readonly snapraid: () => SyncingSnapraid;
  constructor(snapraid: () => SyncingSnapraid) {
    this.snapraid = snapraid;
  }

  lastDiff() {
    return this.last;
  }

  async sync(job: JobHandle, o: { phase: string; onlyIfChanged?: boolean }): Promise<SyncOutcome | null> {
    job.phase(o.phase, { cancellable: true });
    const h: SnapraidHandlers = {
      signal: job.signal,
      onOutput: (l) => job.output(l),
      onSpawn: (pid) => job.pid(pid),
    };
    const { run: d, diff } = await this.snapraid().diff(h);
    if (d.cancelled) return null;
    if (d.errorLine !== null) throw new AppError(500, 'sync_failed', `snapraid diff failed: ${d.errorLine}`);
    this.last = diff;
    if (o.onlyIfChanged && !diff.changes)
      return { changes: diff, reason: 'no_changes', bytes: 0, metadata: null };
    const { run } = await this.snapraid().sync(h);
    if (run.cancelled) return null;
    if (run.errorLine !== null)
      throw new AppError(500, 'sync_failed', `snapraid sync failed: ${run.errorLine}`);
    this.last = { changes: false, paths: { added: [], updated: [] } };
    return { changes: diff, reason: 'synced', bytes: run.progress?.bytesDone ?? 0, metadata: null };
  }
}
