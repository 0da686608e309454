/** The `stacks` and `catalog_sources` tables behind the template installer's ports. */
import { AppError } from '@appliance/common';
import type { CatalogSourceRow, StackRow, StackStore } from '@appliance/template-installer';
import { asc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { catalogSources, stacks } from '../../db/schema.ts';

type Row = typeof stacks.$inferSelect;

const toRow = (r: Row): StackRow => ({
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

const stackExists = (name: string) =>
  new AppError(409, 'stack_exists', `A stack named ${name} already exists; choose another name.`, {
    stack: name,
  });

/** StackStore over SQLite; `.env` bodies sealed with the machine key. */
export function createSqliteStackStore(ctx: AppContext): StackStore {
  return {
    async list() {
      return ctx.db.select().from(stacks).orderBy(asc(stacks.name)).all().map(toRow);
    },
    async get(name) {
      const r = ctx.db.select().from(stacks).where(eq(stacks.name, name)).get();
      return r ? toRow(r) : null;
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
