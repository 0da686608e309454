/** The channel and delivery ports in memory (the api-server implements them over SQLite). */
import type { AuditEntry } from '@appliance/common';
import type { ChannelRecord, ChannelStore, ChannelTx, DeliveryRows, DueRow } from '../operations/ports.ts';

export interface MemoryChannelStore extends ChannelStore {
  /** Opened secrets by channel id. */
  readonly secrets: Map<string, string>;
  /** Audit rows written, in order (`operation target outcome`). */
  readonly audits: string[];
  /** The same audit rows as written. */
  readonly auditEntries: AuditEntry[];
  /** Overwrites a row's stored configuration text (a row written by an older version). */
  corrupt(id: string, config: string): void;
}

export function createMemoryChannelStore(now = () => '2026-11-28T12:00:00.000Z'): MemoryChannelStore {
  let rows = new Map<string, ChannelRecord>();
  const secrets = new Map<string, string>();
  const audits: string[] = [];
  const auditEntries: AuditEntry[] = [];
  let n = 0;
  const copy = (r: ChannelRecord | undefined) => (r ? { ...r } : null);
  return {
    secrets,
    audits,
    auditEntries,
    corrupt(id, config) {
      const r = rows.get(id);
      if (r) r.config = config;
    },
    async list() {
      return [...rows.values()].sort((a, b) =>
        a.name.toLowerCase() < b.name.toLowerCase()
          ? -1
          : a.name.toLowerCase() > b.name.toLowerCase()
            ? 1
            : 0,
      );
    },
    async get(id) {
      return copy(rows.get(id));
    },
    async openSecret(id) {
      return secrets.get(id) ?? null;
    },
    /** One transaction: a throw restores the rows, secrets and audit rows as they were. */
    async write(job, secret = { kind: 'keep' }) {
      const before = { rows: new Map([...rows].map(([k, r]) => [k, { ...r }])), secrets: new Map(secrets) };
      const auditsBefore = audits.length;
      const storeSecret = (id: string) => {
        if (secret.kind === 'set') secrets.set(id, secret.value);
        if (secret.kind === 'clear') secrets.delete(id);
      };
      const tx: ChannelTx = {
        get: (id) => copy(rows.get(id)),
        nameTaken: (name, except) =>
          [...rows.values()].some((r) => r.name.toLowerCase() === name.toLowerCase() && r.id !== except),
        insert(write) {
          n += 1;
          const id = `channel-${n}`;
          storeSecret(id);
          const row: ChannelRecord = {
            id,
            name: write.name,
            type: write.channel.type,
            enabled: write.enabled,
            config: JSON.stringify(write.channel.config),
            hasSecret: secrets.has(id),
            createdAt: now(),
            updatedAt: now(),
          };
          rows.set(id, row);
          return { ...row };
        },
        update(id, write) {
          storeSecret(id);
          const row = rows.get(id)!;
          Object.assign(row, {
            name: write.name,
            enabled: write.enabled,
            config: JSON.stringify(write.channel.config),
            hasSecret: secrets.has(id),
            updatedAt: now(),
          });
          return { ...row };
        },
        remove(id) {
          rows.delete(id);
          secrets.delete(id);
        },
        audit(entry) {
          auditEntries.push(entry);
          audits.push(`${entry.operation} ${entry.target} ${entry.outcome ?? 'ok'}`);
        },
      };
      try {
        return job(tx);
      } catch (error) {
        rows = before.rows;
        secrets.clear();
        for (const [k, v] of before.secrets) secrets.set(k, v);
        audits.splice(auditsBefore);
        auditEntries.splice(auditsBefore);
        throw error;
      }
    },
  };
}

/** A delivery queue in memory: the due rows given, and what the queue decided for each. */
export function memoryDeliveryRows(due: DueRow[], host = 'nas') {
  const failed: { id: number; error: string | null; at: string }[] = [];
  const recorded: { id: number; status: string; at: string }[] = [];
  const rows: DeliveryRows = {
    hostName: () => host,
    due: (_now, limit) => due.slice(0, limit),
    async recordAll(outcomes, at) {
      for (const { id, outcome } of outcomes) {
        if (outcome.status === 'failed') failed.push({ id, error: outcome.lastError, at });
        else recorded.push({ id, status: outcome.status, at });
      }
    },
    async record(id, outcome, at) {
      recorded.push({ id, status: outcome.status, at });
    },
  };
  return Object.assign(rows, { failed, recorded });
}
