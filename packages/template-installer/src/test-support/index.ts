/**
 * In-memory ports for the catalog-source operations and the stack jobs (the api-server implements
 * them over SQLite and its job runner). Tests and daemons without the server use these.
 */
import type { CatalogSourceRow } from '../node/catalog.ts';
import type { StacksDeps } from '../stacks/ports.ts';
import type { StackJobPorts } from '../jobs/ports.ts';
import type { CatalogSourceStore, SourceConditions, SourcesDeps } from '../sources/ports.ts';

export interface MemorySourceStore extends CatalogSourceStore {
  /** The audit rows written, in order (`operation target outcome`). */
  readonly audits: string[];
}

/** Sources in memory, with the `builtin` row at position 0. */
export function createMemorySourceStore(): MemorySourceStore {
  const rows = new Map<string, CatalogSourceRow & { publicKey: string | null }>();
  rows.set('builtin', {
    id: 'builtin',
    kind: 'builtin',
    position: 0,
    url: null,
    serial: null,
    lastRefreshedAt: null,
    lastError: null,
    publicKey: null,
  });
  const audits: string[] = [];
  const strip = ({ publicKey: _k, ...row }: CatalogSourceRow & { publicKey: string | null }) => ({ ...row });
  return {
    audits,
    async list() {
      return [...rows.values()].sort((a, b) => a.position - b.position).map(strip);
    },
    async publicKey(id) {
      return rows.get(id)?.publicKey ?? '';
    },
    async insert(source) {
      if (rows.has(source.id)) return false;
      const top = Math.max(0, ...[...rows.values()].map((r) => r.position));
      rows.set(source.id, {
        id: source.id,
        kind: source.kind,
        position: top + 1,
        url: source.url,
        serial: null,
        lastRefreshedAt: null,
        lastError: null,
        publicKey: source.publicKey,
      });
      audits.push(`catalog_source.add catalog/sources/${source.id} ok`);
      return true;
    },
    async recordRefreshed(id, serial, at) {
      const r = rows.get(id);
      if (r) Object.assign(r, { serial, lastRefreshedAt: at, lastError: null });
    },
    async recordRefreshError(id, message) {
      const r = rows.get(id);
      if (r) r.lastError = message;
    },
    async auditRefresh(id, outcome) {
      audits.push(`catalog_source.refresh catalog/sources/${id} ${outcome}`);
    },
    async remove(id) {
      rows.delete(id);
      audits.push(`catalog_source.delete catalog/sources/${id} ok`);
    },
  };
}

/** Raise-once conditions in memory: the keys holding now, with their reports. */
export function memoryConditions() {
  const held = new Map<string, { report: unknown; source: string }>();
  const conditions: SourceConditions & StackJobPorts['conditions'] = {
    async hold(key: string, report: unknown, source: string) {
      if (held.has(key)) return false;
      held.set(key, { report, source });
      return true;
    },
    async clear(key: string) {
      return held.delete(key);
    },
    async openKeys(prefix: string) {
      return [...held.keys()].filter((k) => k.startsWith(prefix));
    },
  };
  return Object.assign(conditions, { held });
}

/** The catalog-source ports in memory over a real catalog directory. */
export function memorySourcesDeps(
  catalogDir: string,
  now = () => new Date(),
): SourcesDeps & {
  store: MemorySourceStore;
  conditions: ReturnType<typeof memoryConditions>;
} {
  return {
    catalogDir,
    store: createMemorySourceStore(),
    conditions: memoryConditions(),
    clock: { now },
    log: { error: () => undefined },
  };
}

/** The stack jobs' ports without backups (no plan holds a stack) and with in-memory conditions. */
export function memoryStackJobPorts(stacks: StacksDeps) {
  const forgotten: string[] = [];
  const conditions = memoryConditions();
  const ports: StackJobPorts = {
    stacks,
    backups: {
      runningOf: () => null,
      planCovering: () => null,
      hasPlan: () => false,
      runPlan: async () => null,
    },
    conditions,
    forgetFile: async (file: string) => {
      forgotten.push(file);
    },
  };
  return Object.assign(ports, { forgotten, conditions });
}
export * from './apps.ts';
