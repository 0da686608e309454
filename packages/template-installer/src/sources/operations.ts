/** Catalog sources (08 §13): add, refresh (https, signed), remove, and the view of one. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { isSourceId } from '../core/names.ts';
import { type CatalogSourceRow, listSourceIds, type SourceView } from '../node/catalog.ts';
import {
  checkSourceUrl,
  isCatalogCheckFailure,
  publicKeyFromBase64,
  RefreshError,
  refreshHttpsSource,
} from '../node/https-source.ts';
import {
  builtinSource,
  invalidSource,
  refreshFailed,
  refreshRunning,
  sourceExists,
  sourceNotFound,
  sourceNotRefreshable,
  sourcePathUnsafe,
} from './errors.ts';
import type { SourcesDeps } from './ports.ts';

/** The condition of a catalog source whose check failed (issue 22). */
export const catalogConditionKey = (sourceId: string) => `catalog:${sourceId}`;

export interface AddSourceRequest {
  id: string;
  kind: 'directory' | 'https';
  url?: string | undefined;
  publicKey?: string | undefined;
}

/** Refreshes running now, by catalog directory and source: one at a time per source. */
const refreshing = new Set<string>();

export async function sourceView(deps: SourcesDeps, row: CatalogSourceRow): Promise<SourceView> {
  const { ids, error } = await listSourceIds(path.join(deps.catalogDir, row.id));
  return {
    id: row.id,
    kind: row.kind,
    position: row.position,
    url: row.url,
    serial: row.serial,
    lastRefreshedAt: row.lastRefreshedAt,
    templateCount: ids.length,
    error: row.lastError ?? error,
  };
}

const findSource = async (deps: SourcesDeps, id: string) =>
  (await deps.store.list()).find((r) => r.id === id) ?? null;

async function requireSource(deps: SourcesDeps, id: string): Promise<CatalogSourceRow> {
  const row = await findSource(deps, id);
  if (!row) throw sourceNotFound(id);
  return row;
}

/** The input checks of an add (400 bad_request with the field), before anything is written. */
export function checkAddSource(body: AddSourceRequest): void {
  const bad = (p: string, message: string) => invalidSource([{ path: p, message }]);
  if (!isSourceId(body.id))
    throw bad('id', 'use 1 to 32 lower case letters and digits, with single "-" between words');
  if (body.kind === 'https') {
    if (body.url === undefined) throw bad('url', 'an https source needs a url');
    if (body.publicKey === undefined) throw bad('publicKey', 'an https source needs a publicKey');
    const why = checkSourceUrl(body.url);
    if (why) throw bad('url', why);
    if (!publicKeyFromBase64(body.publicKey))
      throw bad('publicKey', 'give the Ed25519 public key as base64 of its 32 bytes');
  } else {
    if (body.url !== undefined) throw bad('url', 'a directory source takes no url');
    if (body.publicKey !== undefined) throw bad('publicKey', 'a directory source takes no publicKey');
  }
}

/**
 * Adds a source: a directory source gets its folder (an existing plain folder is adopted, a
 * symbolic link refused); an https source is refreshed once right away (a failure is recorded on
 * the source, not refused).
 */
export async function addSource(deps: SourcesDeps, body: AddSourceRequest): Promise<SourceView> {
  checkAddSource(body);
  if (body.id === 'builtin' || (await findSource(deps, body.id))) throw sourceExists(body.id);
  const dir = path.join(deps.catalogDir, body.id);
  if (body.kind === 'directory') {
    const st = await fs.lstat(dir).catch(() => null);
    if (st && (st.isSymbolicLink() || !st.isDirectory())) throw sourcePathUnsafe(body.id);
    if (!st) {
      await fs.mkdir(deps.catalogDir, { recursive: true, mode: 0o755 });
      await fs.mkdir(dir, { mode: 0o755 });
    }
  }
  const inserted = await deps.store.insert({
    id: body.id,
    kind: body.kind,
    url: body.url ?? null,
    publicKey: body.publicKey ?? null,
    addedAt: deps.clock.now().toISOString(),
  });
  if (!inserted) throw sourceExists(body.id);
  const row = await requireSource(deps, body.id);
  if (row.kind === 'https') await refresh(deps, row);
  return sourceView(deps, await requireSource(deps, body.id));
}

/** A user's refresh of an https source: audited; a failure keeps the old copy and is refused (502). */
export async function refreshSource(deps: SourcesDeps, id: string): Promise<SourceView> {
  const row = await requireSource(deps, id);
  if (row.kind !== 'https') throw sourceNotRefreshable(row.id, row.kind);
  const key = `${deps.catalogDir}\0${row.id}`;
  if (refreshing.has(key)) throw refreshRunning(row.id);
  refreshing.add(key);
  try {
    const result = await refresh(deps, row);
    await deps.store.auditRefresh(row.id, result.ok ? 'ok' : 'failed');
    if (!result.ok) throw refreshFailed(row.id, result.message);
    return sourceView(deps, await requireSource(deps, row.id));
  } finally {
    refreshing.delete(key);
  }
}

/** Removes a source (installed stacks stay); an https source's downloaded copy goes with it. */
export async function removeSource(deps: SourcesDeps, id: string): Promise<void> {
  if (id === 'builtin') throw builtinSource();
  const row = await requireSource(deps, id);
  await deps.store.remove(row.id);
  if (row.kind === 'https') await fs.rm(path.join(deps.catalogDir, row.id), { recursive: true, force: true });
  await deps.conditions.clear(catalogConditionKey(row.id));
}

/** Runs a refresh and records its outcome; a failure keeps the old copy and sets last_error. */
async function refresh(
  deps: SourcesDeps,
  row: CatalogSourceRow,
): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const serial = await (deps.refresh ?? refreshHttpsSource)({
      catalogDir: deps.catalogDir,
      sourceId: row.id,
      url: row.url!,
      publicKey: await deps.store.publicKey(row.id),
      storedSerial: row.serial,
    });
    await deps.store.recordRefreshed(row.id, serial, deps.clock.now().toISOString());
    await deps.conditions.clear(catalogConditionKey(row.id));
    return { ok: true };
  } catch (e) {
    const message = e instanceof RefreshError ? e.message : 'the refresh failed unexpectedly';
    if (!(e instanceof RefreshError))
      deps.log.error('catalog refresh failed', { source: row.id, error: String(e) });
    await deps.store.recordRefreshError(row.id, message);
    // A check of the catalog itself failed (never a mere network failure): raised once until a
    // refresh of this source passes again (issue 22).
    if (isCatalogCheckFailure(e))
      await deps.conditions.hold(
        catalogConditionKey(row.id),
        {
          eventType: 'catalog_check_failed',
          title: `Catalog source ${row.id}: the ${e.kind} check failed`,
          subject: `the catalog source ${row.id} (${row.url})`,
          value: e.kind,
          message: `The refresh of the catalog source ${row.id} (${row.url}) was refused: ${message}. Nothing of the download was used; the previous copy of the catalog is kept. If the publisher did not change their key or release an older catalog, someone may be tampering with the source: check with the publisher before trusting it again (the next refresh that passes every check clears this).`,
        },
        'catalog',
      );
    return { ok: false, message };
  }
}
