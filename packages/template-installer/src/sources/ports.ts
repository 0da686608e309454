/**
 * What the catalog-source operations (08 §13) need from their host: the `catalog_sources` rows,
 * the raise-once conditions, a clock and a log. The api-server implements the store over SQLite
 * (each write one transaction with its audit row); tests pass `createMemorySourceStore()`.
 */
import type { CatalogSourceRow, SourceKind } from '../node/catalog.ts';

/** A source to add (its position is one after the last). */
export interface NewCatalogSource {
  id: string;
  kind: Exclude<SourceKind, 'builtin'>;
  url: string | null;
  publicKey: string | null;
  addedAt: string;
}

export interface CatalogSourceStore {
  /** Every source, by position. */
  list(): Promise<CatalogSourceRow[]>;
  /** The stored base64 Ed25519 key of an https source ('' when none). */
  publicKey(id: string): Promise<string>;
  /**
   * Inserts the source after the last position, with its audit row (`catalog_source.add`), in one
   * transaction. Returns false, writing nothing, when the id was taken meanwhile.
   */
  insert(source: NewCatalogSource): Promise<boolean>;
  /** A refresh passed: the new serial, the time, and no error. */
  recordRefreshed(id: string, serial: number, at: string): Promise<void>;
  /** A refresh failed: its sentence (the previous copy and serial stay). */
  recordRefreshError(id: string, message: string): Promise<void>;
  /** The audit row of a refresh asked for by a user (`catalog_source.refresh`). */
  auditRefresh(id: string, outcome: 'ok' | 'failed'): Promise<void>;
  /** Deletes the row with its audit row (`catalog_source.delete`). */
  remove(id: string): Promise<void>;
}

/** A condition raised once until cleared (the server's `ctx.conditions`). */
export interface SourceConditions {
  hold(
    key: string,
    report: { eventType: string; title: string; subject: string; value: string; message: string },
    source: string,
  ): Promise<unknown>;
  clear(key: string): Promise<unknown>;
}

export interface SourcesDeps {
  /** Where each source's templates live: `<catalogDir>/<source id>/`. */
  catalogDir: string;
  store: CatalogSourceStore;
  conditions: SourceConditions;
  clock: { now(): Date };
  log: { error(msg: string, fields?: Record<string, unknown>): void };
  /** The refresh itself (default `refreshHttpsSource`); a test injects a failure. */
  refresh?: typeof import('../node/https-source.ts').refreshHttpsSource;
}
