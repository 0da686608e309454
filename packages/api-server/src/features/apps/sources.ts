/** Catalog sources (08 §13): add, refresh (https), delete. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, badRequest } from '@appliance/common';
import {
  type CatalogSourceRow,
  checkSourceUrl,
  isCatalogCheckFailure,
  isSourceId,
  listSourceIds,
  publicKeyFromBase64,
  RefreshError,
  refreshHttpsSource,
  type SourceView,
} from '@appliance/template-installer';
import { eq, max } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { catalogSources } from '../../db/schema.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { AddSourceBody, SourceIdParams, SourceSchema } from './schemas.ts';
import { readCatalogSources } from './store.ts';

const refreshing = new Set<string>();

async function view(ctx: AppContext, row: CatalogSourceRow): Promise<SourceView> {
  const { ids, error } = await listSourceIds(path.join(ctx.paths.catalogDir, row.id));
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

const sourceRow = (ctx: AppContext, id: string) => readCatalogSources(ctx).find((r) => r.id === id) ?? null;

const notFound = (id: string) =>
  new AppError(
    404,
    'catalog_source_not_found',
    `There is no catalog source ${id}; list the catalog to see the sources.`,
    { source: id },
  );

/** Runs a refresh and records its outcome; a failure keeps the old copy and sets last_error. */
async function refresh(
  ctx: AppContext,
  row: CatalogSourceRow,
): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const serial = await refreshHttpsSource({
      catalogDir: ctx.paths.catalogDir,
      sourceId: row.id,
      url: row.url!,
      publicKey:
        ctx.db
          .select({ k: catalogSources.publicKey })
          .from(catalogSources)
          .where(eq(catalogSources.id, row.id))
          .get()?.k ?? '',
      storedSerial: row.serial,
    });
    await ctx.writes.run((db) =>
      db
        .update(catalogSources)
        .set({ serial, lastRefreshedAt: ctx.clock.now().toISOString(), lastError: null })
        .where(eq(catalogSources.id, row.id))
        .run(),
    );
    await ctx.conditions.clear(catalogConditionKey(row.id));
    return { ok: true };
  } catch (e) {
    const message = e instanceof RefreshError ? e.message : 'the refresh failed unexpectedly';
    if (!(e instanceof RefreshError))
      ctx.logger.error('catalog refresh failed', { source: row.id, error: String(e) });
    await ctx.writes.run((db) =>
      db.update(catalogSources).set({ lastError: message }).where(eq(catalogSources.id, row.id)).run(),
    );
    // A check of the catalog itself failed (never a mere network failure): raised once until a
    // refresh of this source passes again (issue 22).
    if (isCatalogCheckFailure(e))
      await ctx.conditions.hold(
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

/** The condition of a catalog source whose check failed. */
export const catalogConditionKey = (sourceId: string) => `catalog:${sourceId}`;

export const sourceRoutes = [
  defineRoute({
    method: 'POST',
    path: '/catalog/sources',
    role: 'admin',
    summary: 'Add a catalog source',
    tags: ['apps'],
    body: AddSourceBody,
    responses: {
      201: { description: 'The source', schema: SourceSchema },
      400: { description: 'Bad input' },
      409: { description: 'Conflict' },
    },
    handler: async ({ ctx, actor, body }) => {
      if (!isSourceId(body.id))
        throw badRequest([
          { path: 'id', message: 'use 1 to 32 lower case letters and digits, with single "-" between words' },
        ]);
      if (body.kind === 'https') {
        if (body.url === undefined)
          throw badRequest([{ path: 'url', message: 'an https source needs a url' }]);
        if (body.publicKey === undefined)
          throw badRequest([{ path: 'publicKey', message: 'an https source needs a publicKey' }]);
        const why = checkSourceUrl(body.url);
        if (why) throw badRequest([{ path: 'url', message: why }]);
        if (!publicKeyFromBase64(body.publicKey))
          throw badRequest([
            { path: 'publicKey', message: 'give the Ed25519 public key as base64 of its 32 bytes' },
          ]);
      } else {
        if (body.url !== undefined)
          throw badRequest([{ path: 'url', message: 'a directory source takes no url' }]);
        if (body.publicKey !== undefined)
          throw badRequest([{ path: 'publicKey', message: 'a directory source takes no publicKey' }]);
      }
      const exists = () =>
        new AppError(
          409,
          'catalog_source_exists',
          `A catalog source named ${body.id} already exists; choose another id.`,
          {
            source: body.id,
          },
        );
      if (body.id === 'builtin' || sourceRow(ctx, body.id)) throw exists();
      const dir = path.join(ctx.paths.catalogDir, body.id);
      if (body.kind === 'directory') {
        const st = await fs.lstat(dir).catch(() => null);
        if (st && (st.isSymbolicLink() || !st.isDirectory()))
          throw new AppError(
            409,
            'catalog_source_path_unsafe',
            `/var/lib/appliance/catalog/${body.id} is a symbolic link or not a directory; move it away and try again.`,
            { source: body.id },
          );
        if (!st) {
          await fs.mkdir(ctx.paths.catalogDir, { recursive: true, mode: 0o755 });
          await fs.mkdir(dir, { mode: 0o755 });
        }
      }
      await ctx.writes.run((db) => {
        if (
          db
            .select({ id: catalogSources.id })
            .from(catalogSources)
            .where(eq(catalogSources.id, body.id))
            .get()
        )
          throw exists();
        const top =
          db
            .select({ m: max(catalogSources.position) })
            .from(catalogSources)
            .get()?.m ?? 0;
        db.insert(catalogSources)
          .values({
            id: body.id,
            kind: body.kind,
            position: top + 1,
            url: body.url ?? null,
            publicKey: body.publicKey ?? null,
            addedAt: ctx.clock.now().toISOString(),
          })
          .run();
        ctx.audit.record(db, actor, {
          operation: 'catalog_source.add',
          target: `catalog/sources/${body.id}`,
        });
      });
      const row = sourceRow(ctx, body.id)!;
      if (row.kind === 'https') await refresh(ctx, row);
      return created(await view(ctx, sourceRow(ctx, body.id)!));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/catalog/sources/:id/refresh',
    role: 'admin',
    summary: 'Refresh an https catalog source',
    tags: ['apps'],
    params: SourceIdParams,
    responses: {
      200: { description: 'The source', schema: SourceSchema },
      404: { description: 'Unknown source' },
      409: { description: 'Conflict' },
      502: { description: 'Refresh failed' },
    },
    handler: async ({ ctx, actor, params }) => {
      const row = sourceRow(ctx, params.id);
      if (!row) throw notFound(params.id);
      if (row.kind !== 'https')
        throw new AppError(
          409,
          'catalog_source_not_refreshable',
          `The source ${row.id} is a ${row.kind} source; only https sources are refreshed.`,
          {
            source: row.id,
          },
        );
      if (refreshing.has(row.id))
        throw new AppError(
          409,
          'catalog_refresh_running',
          `A refresh of ${row.id} is already running; wait for it to finish.`,
          { source: row.id },
        );
      refreshing.add(row.id);
      try {
        const result = await refresh(ctx, row);
        await ctx.writes.run((db) =>
          ctx.audit.record(db, actor, {
            operation: 'catalog_source.refresh',
            target: `catalog/sources/${row.id}`,
            outcome: result.ok ? 'ok' : 'failed',
          }),
        );
        if (!result.ok)
          throw new AppError(
            502,
            'catalog_refresh_failed',
            `The refresh of ${row.id} failed (${result.message}); the previous copy is kept.`,
            {
              source: row.id,
            },
          );
        return ok(await view(ctx, sourceRow(ctx, row.id)!));
      } finally {
        refreshing.delete(row.id);
      }
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/catalog/sources/:id',
    role: 'admin',
    summary: 'Remove a catalog source (installed stacks stay)',
    tags: ['apps'],
    params: SourceIdParams,
    responses: {
      204: { description: 'Removed' },
      404: { description: 'Unknown source' },
      409: { description: 'The built-in source' },
    },
    handler: async ({ ctx, actor, params }) => {
      if (params.id === 'builtin')
        throw new AppError(409, 'catalog_source_builtin', 'The built-in catalog cannot be removed.', {
          source: 'builtin',
        });
      const row = sourceRow(ctx, params.id);
      if (!row) throw notFound(params.id);
      await ctx.writes.run((db) => {
        db.delete(catalogSources).where(eq(catalogSources.id, row.id)).run();
        ctx.audit.record(db, actor, {
          operation: 'catalog_source.delete',
          target: `catalog/sources/${row.id}`,
        });
      });
      if (row.kind === 'https')
        await fs.rm(path.join(ctx.paths.catalogDir, row.id), { recursive: true, force: true });
      await ctx.conditions.clear(catalogConditionKey(row.id));
      return noContent();
    },
  }),
];
