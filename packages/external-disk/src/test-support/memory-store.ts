import type { NewExternalDiskRow } from '../core/check-register.ts';
import type { ArraySlotIdentity, ExternalDiskRow } from '../core/types.ts';
import { externalDiskStore } from '../operations/store-rules.ts';
import type { ExternalDiskStore, FormatRecord, FormatStart } from '../ports.ts';
import { type MemoryRows, memoryExternalDiskRows } from './memory-rows.ts';

export interface AuditRecord {
  operation: string;
  target: string;
  outcome: 'ok' | 'failed';
  details: Record<string, unknown>;
}

/**
 * An in-memory ExternalDiskStore for the package's own tests (the server's store is SQLite): the
 * package's `externalDiskStore`, which holds the uniqueness rules (label ignoring case, fs UUID),
 * over `memoryExternalDiskRows`, as the server's store is over its SQLite rows. `rows`, `slots`
 * (the array's members) and `audit` are the state a test reads and sets.
 */
export class MemoryStore implements ExternalDiskStore {
  slots: ArraySlotIdentity[] = [];
  private readonly memory: MemoryRows;
  private readonly store: ExternalDiskStore;

  constructor() {
    this.memory = Object.assign(memoryExternalDiskRows(), {
      listArraySlots: async () => this.slots.map((s) => ({ ...s })),
    });
    this.store = externalDiskStore(this.memory);
  }

  get rows(): ExternalDiskRow[] {
    return this.memory.rows;
  }
  set rows(rows: ExternalDiskRow[]) {
    this.memory.rows = rows;
  }
  get audit(): MemoryRows['audit'] {
    return this.memory.audit;
  }

  listRows() {
    return this.store.listRows();
  }
  listArraySlots() {
    return this.store.listArraySlots();
  }
  insertRegistration(row: NewExternalDiskRow, at: string) {
    return this.store.insertRegistration(row, at);
  }
  recordFormatStart(start: FormatStart) {
    return this.store.recordFormatStart(start);
  }
  recordFormat(record: FormatRecord) {
    return this.store.recordFormat(record);
  }
}
