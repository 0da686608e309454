/** The ports this package needs from its host (the api-server implements them over SQLite). */
import { AppError } from '@appliance/common';

export interface StackTemplateRef {
  source: string;
  id: string;
  revision: number;
}

export interface StackRow {
  name: string;
  template: StackTemplateRef | null;
  compose: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  installedAt: string;
  manuallyEdited: boolean;
  pending: boolean;
}

/** A `stacks` row as stored (flags as 0/1, the template reference in three nullable columns). */
export interface StoredStackColumns {
  name: string;
  templateSource: string | null;
  templateId: string | null;
  templateRevision: number | null;
  compose: string;
  installedAt: string;
  manuallyEdited: number;
  pending: number;
}

/** The row a store answers: a template reference only when all three of its columns are set. */
export const stackRowOf = (r: StoredStackColumns): StackRow => ({
  name: r.name,
  template:
    r.templateSource !== null && r.templateId !== null && r.templateRevision !== null
      ? { source: r.templateSource, id: r.templateId, revision: r.templateRevision }
      : null,
  compose: r.compose,
  installedAt: r.installedAt,
  manuallyEdited: r.manuallyEdited !== 0,
  pending: r.pending !== 0,
});

/** The `stacks` table; `.env` bodies are sealed and unsealed behind this interface. */
export interface StackStore {
  list(): Promise<StackRow[]>;
  get(name: string): Promise<StackRow | null>;
  /** The unsealed `.env` text; throws when the sealed value cannot be opened. */
  readEnv(name: string): Promise<string>;
  /** Inserts with pending = 1; a name clash throws AppError 409 stack_exists. */
  insertPending(row: Omit<StackRow, 'pending' | 'manuallyEdited'>, env: string): Promise<void>;
  /** pending = 0. */
  finish(name: string): Promise<void>;
  /** Replaces the `.env` body of an installed stack (an edit of its inputs). */
  updateEnv(name: string, env: string): Promise<void>;
  remove(name: string): Promise<void>;
}

/** Process-wide locks: `run` waits its turn (FIFO per key). */
export interface Locks {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

export const INSTALL_LOCK = 'apps:install';
export const stackLockKey = (name: string) => `apps:stack:${name}`;

/** A FIFO keyed lock for callers that have none (the server passes its own). */
export function createLocks(): Locks {
  const tails = new Map<string, Promise<void>>();
  return {
    async run(key, fn) {
      const prev = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((r) => {
        release = r;
      });
      const tail = prev.then(() => mine);
      tails.set(key, tail);
      await prev;
      try {
        return await fn();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}

/** An in-memory StackStore (unit tests and the benchmark's baseline; the server uses SQLite). */
export function createMemoryStackStore(): StackStore & { envs: Map<string, string> } {
  const rows = new Map<string, StackRow>();
  const envs = new Map<string, string>();
  return {
    envs,
    async list() {
      return [...rows.values()].map((r) => ({ ...r }));
    },
    async get(name) {
      const r = rows.get(name);
      return r ? { ...r } : null;
    },
    async readEnv(name) {
      const e = envs.get(name);
      if (e === undefined) throw new Error(`no env for ${name}`);
      return e;
    },
    async insertPending(row, env) {
      if (rows.has(row.name)) {
        throw new AppError(
          409,
          'stack_exists',
          `A stack named ${row.name} already exists; choose another name.`,
          { stack: row.name },
        );
      }
      rows.set(row.name, { ...row, manuallyEdited: false, pending: true });
      envs.set(row.name, env);
    },
    async finish(name) {
      const r = rows.get(name);
      if (r) r.pending = false;
    },
    async updateEnv(name, env) {
      if (!rows.has(name)) throw new Error(`no stack ${name}`);
      envs.set(name, env);
    },
    async remove(name) {
      rows.delete(name);
      envs.delete(name);
    },
  };
}
