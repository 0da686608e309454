import type { ExternalDiskRow } from '../core/types.ts';
import type { ExternalDiskRows, ExternalDiskRowsTx } from '../operations/store-rules.ts';
import type { AuditRecord } from './memory-store.ts';

/**
 * In-memory `ExternalDiskRows`: plain row ports with no rules of their own (the package's
 * `externalDiskStore` adds them); a write works on a copy that replaces the rows only when `fn`
 * returns, so a throw writes nothing, as a transaction.
 */
export interface MemoryRows extends ExternalDiskRows {
  rows: ExternalDiskRow[];
  audit: Array<Omit<AuditRecord, 'outcome'> & { outcome?: 'ok' | 'failed' }>;
}

export function memoryExternalDiskRows(): MemoryRows {
  let nextId = 1;
  const state: MemoryRows = {
    rows: [],
    audit: [],
    listRows: async () => state.rows.map((r) => ({ ...r })),
    listArraySlots: async () => [],
    write: async (fn) => {
      const rows = state.rows.map((r) => ({ ...r }));
      const audit: MemoryRows['audit'] = [];
      let id = nextId;
      const tx: ExternalDiskRowsTx = {
        byLabel: (label) => rows.find((r) => r.label.toLowerCase() === label.toLowerCase()),
        byFsUuid: (fsUuid) => rows.find((r) => r.fsUuid === fsUuid),
        insert: (row) => {
          const stored = { formattedAt: null, ...row, id: id++ };
          rows.push(stored);
          return { ...stored };
        },
        update: (rowId, values) => {
          const r = rows.find((x) => x.id === rowId);
          if (!r) return undefined;
          Object.assign(
            r,
            values.formattedAt === undefined ? { ...values, formattedAt: r.formattedAt } : values,
          );
          return { ...r };
        },
        clearFsUuid: (fsUuid, exceptId) => {
          for (const r of rows) if (r.fsUuid === fsUuid && r.id !== exceptId) r.fsUuid = null;
        },
        audit: (entry) => void audit.push(entry),
      };
      const result = fn(tx);
      state.rows = rows;
      state.audit.push(...audit);
      nextId = id;
      return result;
    },
  };
  return state;
}
