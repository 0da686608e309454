/**
 * The `ExternalDiskStore` the operations use, built over plain row ports (07 §2.1, §6.6): labels
 * are unique ignoring case and a filesystem UUID belongs to one row, both re-checked inside the
 * write (another request may have won since the checks); each write holds its audit row. The
 * server implements `ExternalDiskRows` over SQLite (one transaction per `write`).
 */
import { AppError } from '@appliance/common';
import { filesystemRegistered, labelTaken, type NewExternalDiskRow } from '../core/check-register.ts';
import type { ArraySlotIdentity, ExternalDiskRow } from '../core/types.ts';
import type { ExternalDiskStore, FormatRecord } from '../ports.ts';

/** The identity and filesystem columns of a row. */
export type DiskColumns = FormatRecord['columns'];

/** One write transaction over the `external_disks` rows (plain queries). */
export interface ExternalDiskRowsTx {
  /** The row whose label equals `label` ignoring case, if any. */
  byLabel(label: string): ExternalDiskRow | undefined;
  /** The row holding this filesystem UUID, if any. */
  byFsUuid(fsUuid: string): ExternalDiskRow | undefined;
  insert(
    row: DiskColumns & {
      label: string;
      backupDestination: boolean;
      createdAt: string;
      formattedAt?: string | null;
    },
  ): ExternalDiskRow;
  /** Updates row `id`; undefined when it no longer exists. */
  update(id: number, values: DiskColumns & { formattedAt?: string | null }): ExternalDiskRow | undefined;
  /** Clears `fs_uuid` on every row holding `fsUuid` but row `exceptId` (null: every row). */
  clearFsUuid(fsUuid: string, exceptId: number | null): void;
  audit(entry: {
    operation: string;
    target: string;
    outcome?: 'ok' | 'failed';
    details: Record<string, unknown>;
  }): void;
}

export interface ExternalDiskRows {
  listRows(): Promise<ExternalDiskRow[]>;
  listArraySlots(): Promise<ArraySlotIdentity[]>;
  /** Runs `fn` in one write transaction (a throw writes nothing). */
  write<T>(fn: (tx: ExternalDiskRowsTx) => T): Promise<T>;
}

/** Labels are unique ignoring case; `selfId` is the row being written. */
function assertLabelFree(tx: ExternalDiskRowsTx, label: string, selfId: number | null): void {
  const taken = tx.byLabel(label);
  if (taken && taken.id !== selfId) throw labelTaken(taken.label);
}

function assertUuidFree(tx: ExternalDiskRowsTx, fsUuid: string | null, selfId: number | null): void {
  if (fsUuid === null) return;
  const taken = tx.byFsUuid(fsUuid);
  if (taken && taken.id !== selfId) throw filesystemRegistered(taken.label);
}

const vanished = () => new AppError(500, 'internal', 'The external disk row disappeared during the format.');

/** The operations' store over `rows`. */
export function externalDiskStore(rows: ExternalDiskRows): ExternalDiskStore {
  return {
    listRows: () => rows.listRows(),
    listArraySlots: () => rows.listArraySlots(),
    insertRegistration: (row: NewExternalDiskRow, at: string) =>
      rows.write((tx) => {
        assertLabelFree(tx, row.label, null);
        assertUuidFree(tx, row.fsUuid, null);
        const inserted = tx.insert({ ...row, createdAt: at });
        tx.audit({
          operation: 'disks.external.register',
          target: row.label,
          details: { device: row.device, backupDestination: row.backupDestination },
        });
        return inserted;
      }),
    // No audit row: the attempt's one audit row comes with recordFormat (07 §6.6).
    recordFormatStart: (start) =>
      rows.write((tx) => {
        assertLabelFree(tx, start.label, start.rowId);
        const values = { ...start.columns, filesystem: null, fsUuid: null };
        const stored =
          start.rowId === null
            ? tx.insert({ ...values, label: start.label, backupDestination: false, createdAt: start.at })
            : tx.update(start.rowId, values);
        if (!stored) throw vanished();
        return stored.id;
      }),
    recordFormat: (record) =>
      rows.write((tx) => {
        assertLabelFree(tx, record.label, record.rowId);
        // A fresh filesystem UUID cannot belong to another row; if it somehow does, the old row
        // loses it (it names a filesystem that no longer exists anywhere else).
        if (record.columns.fsUuid !== null) tx.clearFsUuid(record.columns.fsUuid, record.rowId);
        const values = { ...record.columns, formattedAt: record.formattedAt };
        const stored =
          record.rowId === null
            ? tx.insert({
                ...values,
                label: record.label,
                backupDestination: false,
                createdAt: record.audit.at,
              })
            : tx.update(record.rowId, values);
        if (!stored) throw vanished();
        tx.audit({
          operation: 'disks.external.format',
          target: record.label,
          outcome: record.audit.outcome,
          details: record.audit.details,
        });
        return stored;
      }),
  };
}
