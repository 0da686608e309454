/** The channel and delivery ports in memory (the api-server implements them over SQLite). */
import type { AuditEntry } from '@appliance/common';
import type { ChannelRecord, ChannelStore, DeliveryRows, DueRow } from '../operations/ports.ts';

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
  const rows = new Map<string, ChannelRecord>();
  const secrets = new Map<string, string>();
  const audits: string[] = [];
  const auditEntries: AuditEntry[] = [];
  const audit = (entry: AuditEntry) => {
    auditEntries.push(entry);
    audits.push(`${entry.operation} ${entry.target} ${entry.outcome ?? 'ok'}`);
  };
  let n = 0;
  const taken = (name: string, except: string | null) =>
    [...rows.values()].some((r) => r.name.toLowerCase() === name.toLowerCase() && r.id !== except);
  const stored = (r: ChannelRecord) => ({
    ...r,
    type: r.type as never,
    config: JSON.parse(r.config) as Record<string, unknown>,
  });
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
      return rows.get(id) ?? null;
    },
    async openSecret(id) {
      return secrets.get(id) ?? null;
    },
    async insert(write, auditOf) {
      if (taken(write.name, null)) return null;
      n += 1;
      const id = `channel-${n}`;
      const at = now();
      const row: ChannelRecord = {
        id,
        name: write.name,
        type: write.channel.type,
        enabled: write.enabled,
        config: JSON.stringify(write.channel.config),
        hasSecret: write.secret.kind === 'set',
        createdAt: at,
        updatedAt: at,
      };
      if (write.secret.kind === 'set') secrets.set(id, write.secret.value);
      rows.set(id, row);
      audit(auditOf(row));
      return { ...row };
    },
    async update(id, write, check, auditOf) {
      const fresh = rows.get(id);
      if (!fresh) return 'not_found';
      check(stored(fresh));
      if (taken(write.name, id)) return 'name_taken';
      if (write.secret.kind === 'set') secrets.set(id, write.secret.value);
      if (write.secret.kind === 'clear') secrets.delete(id);
      Object.assign(fresh, {
        name: write.name,
        enabled: write.enabled,
        config: JSON.stringify(write.channel.config),
        hasSecret: secrets.has(id),
        updatedAt: now(),
      });
      audit(auditOf(fresh));
      return { ...fresh };
    },
    async remove(id, auditOf) {
      const row = rows.get(id);
      if (!row) return false;
      rows.delete(id);
      secrets.delete(id);
      audit(auditOf(row));
      return true;
    },
    async audit(entry) {
      audit(entry);
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
