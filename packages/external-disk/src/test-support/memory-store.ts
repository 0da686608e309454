import { AppError } from '@appliance/common';
import { filesystemRegistered, labelTaken } from '../core/check-register.ts';
import type { ArraySlotIdentity, ExternalDiskRow } from '../core/types.ts';
import type { ExternalDiskStore, FormatRecord, FormatStart } from '../ports.ts';

export interface AuditRecord {
  operation: string;
  target: string;
  outcome: 'ok' | 'failed';
  details: Record<string, unknown>;
}

/**
 * An in-memory ExternalDiskStore for the package's own tests (the server's store is SQLite).
 * It enforces the same uniqueness rules as the table: label (case-insensitive) and fs UUID.
 */
export class MemoryStore implements ExternalDiskStore {
  rows: ExternalDiskRow[] = [];
  slots: ArraySlotIdentity[] = [];
  audit: AuditRecord[] = [];
  private nextId = 1;

  async listRows() {
    return this.rows.map((r) => ({ ...r }));
  }
  async listArraySlots() {
    return this.slots.map((s) => ({ ...s }));
  }
  async insertRegistration(row: Omit<ExternalDiskRow, 'id' | 'createdAt' | 'formattedAt'>, at: string) {
    this.assertUnique(row.label, row.fsUuid, null);
    const stored: ExternalDiskRow = { ...row, id: this.nextId++, createdAt: at, formattedAt: null };
    this.rows.push(stored);
    this.audit.push({ operation: 'disks.external.register', target: row.label, outcome: 'ok', details: {} });
    return { ...stored };
  }
  async recordFormatStart(start: FormatStart) {
    this.assertUnique(start.label, null, start.rowId);
    const columns = { ...start.columns, filesystem: null, fsUuid: null };
    if (start.rowId === null) {
      const stored: ExternalDiskRow = {
        ...columns,
        id: this.nextId++,
        label: start.label,
        backupDestination: false,
        createdAt: start.at,
        formattedAt: null,
      };
      this.rows.push(stored);
      return stored.id;
    }
    const existing = this.rows.find((r) => r.id === start.rowId);
    if (!existing) throw new AppError(500, 'internal', 'row vanished');
    Object.assign(existing, columns);
    return existing.id;
  }
  async recordFormat(record: FormatRecord) {
    this.assertUnique(record.label, record.columns.fsUuid, record.rowId);
    let stored: ExternalDiskRow;
    if (record.rowId === null) {
      stored = {
        ...record.columns,
        id: this.nextId++,
        label: record.label,
        backupDestination: false,
        createdAt: record.audit.at,
        formattedAt: record.formattedAt,
      };
      this.rows.push(stored);
    } else {
      const existing = this.rows.find((r) => r.id === record.rowId);
      if (!existing) throw new AppError(500, 'internal', 'row vanished');
      Object.assign(existing, record.columns, { formattedAt: record.formattedAt });
      stored = existing;
    }
    this.audit.push({
      operation: 'disks.external.format',
      target: record.label,
      outcome: record.audit.outcome,
      details: record.audit.details,
    });
    return { ...stored };
  }
  private assertUnique(label: string, fsUuid: string | null, selfId: number | null) {
    const others = this.rows.filter((r) => r.id !== selfId);
    const taken = others.find((r) => r.label.toLowerCase() === label.toLowerCase());
    if (taken) throw labelTaken(taken.label);
    const holder = fsUuid === null ? undefined : others.find((r) => r.fsUuid === fsUuid);
    if (holder) throw filesystemRegistered(holder.label);
  }
}
