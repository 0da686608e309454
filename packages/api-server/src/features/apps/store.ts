/** The `stacks` and `catalog_sources` tables behind the template installer's ports. */
import {
  type CatalogSourceRow,
  type CatalogSourceStore,
  type StackStore,
  type StoredPlan,
  stackExists,
  stackRowOf,
} from '@appliance/template-installer';
import { and, asc, eq, isNull, like, max } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { backupPlans, catalogSources, stacks, watcherConditions } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

/** StackStore over SQLite; `.env` bodies sealed with the machine key. */
export function createSqliteStackStore(ctx: AppContext): StackStore {
  return {
    async list() {
      return ctx.db.select().from(stacks).orderBy(asc(stacks.name)).all().map(stackRowOf);
    },
    async get(name) {
      const r = ctx.db.select().from(stacks).where(eq(stacks.name, name)).get();
      return r ? stackRowOf(r) : null;
    },
    async readEnv(name) {
      const r = ctx.db.select({ env: stacks.env }).from(stacks).where(eq(stacks.name, name)).get();
      if (!r) throw new Error(`no stack ${name}`);
      return ctx.sealer.unsealText(r.env);
    },
    async insertPending(row, env) {
      const sealed = ctx.sealer.seal(env);
      await ctx.writes.run((db) => {
        if (db.select({ name: stacks.name }).from(stacks).where(eq(stacks.name, row.name)).get())
          throw stackExists(row.name);
        db.insert(stacks)
          .values({
            name: row.name,
            templateSource: row.template?.source ?? null,
            templateId: row.template?.id ?? null,
            templateRevision: row.template?.revision ?? null,
            compose: row.compose,
            env: sealed,
            installedAt: row.installedAt,
            manuallyEdited: 0,
            pending: 1,
          })
          .run();
      });
    },
    async finish(name) {
      await ctx.writes.run((db) => db.update(stacks).set({ pending: 0 }).where(eq(stacks.name, name)).run());
    },
    async updateEnv(name, env) {
      const sealed = ctx.sealer.seal(env);
      await ctx.writes.run((db) => db.update(stacks).set({ env: sealed }).where(eq(stacks.name, name)).run());
    },
    async remove(name) {
      await ctx.writes.run((db) => db.delete(stacks).where(eq(stacks.name, name)).run());
    },
  };
}

export function readCatalogSources(ctx: AppContext): CatalogSourceRow[] {
  return ctx.db
    .select()
    .from(catalogSources)
    .orderBy(asc(catalogSources.position))
    .all()
    .map((r) => ({
      id: r.id,
      kind: r.kind,
      position: r.position,
      url: r.url,
      serial: r.serial,
      lastRefreshedAt: r.lastRefreshedAt,
      lastError: r.lastError,
    }));
}

/** Seeds the `builtin` row (position 0) when absent. */
export async function ensureBuiltinSource(ctx: AppContext): Promise<void> {
  await ctx.writes.run((db) => {
    if (
      db.select({ id: catalogSources.id }).from(catalogSources).where(eq(catalogSources.id, 'builtin')).get()
    )
      return;
    db.insert(catalogSources)
      .values({ id: 'builtin', kind: 'builtin', position: 0, addedAt: ctx.clock.now().toISOString() })
      .run();
  });
}

/** The `catalog_sources` table behind the source operations; audit rows of `actor`. */
export function createSqliteSourceStore(ctx: AppContext, actor: Actor | null): CatalogSourceStore {
  const target = (id: string) => `catalog/sources/${id}`;
  return {
    list: async () => readCatalogSources(ctx),
    async publicKey(id) {
      return (
        ctx.db
          .select({ k: catalogSources.publicKey })
          .from(catalogSources)
          .where(eq(catalogSources.id, id))
          .get()?.k ?? ''
      );
    },
    insert: (source) =>
      ctx.writes.run((db) => {
        if (
          db
            .select({ id: catalogSources.id })
            .from(catalogSources)
            .where(eq(catalogSources.id, source.id))
            .get()
        )
          return false;
        const top =
          db
            .select({ m: max(catalogSources.position) })
            .from(catalogSources)
            .get()?.m ?? 0;
        db.insert(catalogSources)
          .values({ ...source, position: top + 1 })
          .run();
        ctx.audit.record(db, actor, { operation: 'catalog_source.add', target: target(source.id) });
        return true;
      }),
    async recordRefreshed(id, serial, at) {
      await ctx.writes.run((db) =>
        db
          .update(catalogSources)
          .set({ serial, lastRefreshedAt: at, lastError: null })
          .where(eq(catalogSources.id, id))
          .run(),
      );
    },
    async recordRefreshError(id, message) {
      await ctx.writes.run((db) =>
        db.update(catalogSources).set({ lastError: message }).where(eq(catalogSources.id, id)).run(),
      );
    },
    async auditRefresh(id, outcome) {
      await ctx.writes.run((db) =>
        ctx.audit.record(db, actor, { operation: 'catalog_source.refresh', target: target(id), outcome }),
      );
    },
    async remove(id) {
      await ctx.writes.run((db) => {
        db.delete(catalogSources).where(eq(catalogSources.id, id)).run();
        ctx.audit.record(db, actor, { operation: 'catalog_source.delete', target: target(id) });
      });
    },
  };
}

/** The backup plans with their stack lists as stored (JSON). */
export function readBackupPlans(ctx: AppContext): StoredPlan[] {
  return ctx.db
    .select({ name: backupPlans.name, destination: backupPlans.destination, stacks: backupPlans.stacks })
    .from(backupPlans)
    .all();
}

/** Open conditions whose key is LIKE `prefix%` (the package checks the prefix again). */
export async function openConditions(ctx: AppContext, prefix: string) {
  return ctx.db
    .select({ key: watcherConditions.key, message: watcherConditions.message })
    .from(watcherConditions)
    .where(and(like(watcherConditions.key, `${prefix}%`), isNull(watcherConditions.clearedAt)))
    .all();
}

/** The stacks, with whether their install is still pending (the backups' plan facts, the watchers). */
export const stackRows = (db: Db) =>
  db
    .select({ name: stacks.name, pending: stacks.pending })
    .from(stacks)
    .all()
    .map((r) => ({ name: r.name, pending: r.pending !== 0 }));
