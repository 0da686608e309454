/**
 * The ports of @appliance/template-installer (stacks, stack jobs, catalog sources, the installer)
 * wired to this server. Loaded on the first apps request or stack job, with the package's heavy half.
 */
import {
  createCatalog,
  createComposeTool,
  createDockerEngine,
  createStacksDeps,
  type DockerEngine,
  engineSocket,
  Installer,
  toolEnvironment,
  type SourcesDeps,
  type StackJobKind,
  type StackJobPorts,
  type StacksDeps,
  stackJobImplementation,
} from '@appliance/template-installer';
import { IMAGE_KEY_PREFIX } from '@appliance/watchers';

/**
 * The package's operations the routes call, re-exported here so that they load with this module on
 * first use (a dynamic import of the package itself would make the whole package part of the start).
 */
export {
  addSource,
  assertNoBackupOf,
  checkPortsFor,
  followStackLogs,
  isStackRunning,
  listStacks,
  refreshSource,
  removeSource,
  requireStack,
  showStack,
  stackLogs,
} from '@appliance/template-installer';
import { and, eq, isNull, like } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { backupPlans, shares, watcherConditions } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { backupRestoreJob, backupRunJob } from '@appliance/backups';
import {
  createSqliteSourceStore,
  createSqliteStackStore,
  planCovering,
  planHoldsStack,
  readCatalogSources,
} from './store.ts';

/** Where templates put their `appdata` folders (docs/decisions/backups.md): the only data removed. */
export const APPDATA_ROOT = '/mnt/cache';

const cache = new WeakMap<AppContext, StacksDeps>();

/** Open conditions whose key starts with `prefix` (the images watcher's `image:<stack>/<service>`). */
function openConditions(ctx: AppContext, prefix: string): { key: string; message: string }[] {
  return ctx.db
    .select({ key: watcherConditions.key, message: watcherConditions.message })
    .from(watcherConditions)
    .where(and(like(watcherConditions.key, `${prefix}%`), isNull(watcherConditions.clearedAt)))
    .all()
    .filter((r) => r.key.startsWith(prefix));
}

/** Open `container_update_available` conditions of a stack: service → message. */
function updatesOf(ctx: AppContext, name: string): Map<string, string> {
  const prefix = `${IMAGE_KEY_PREFIX}${name}/`;
  return new Map(openConditions(ctx, prefix).map((r) => [r.key.slice(prefix.length), r.message]));
}

export function stacksDeps(ctx: AppContext): StacksDeps {
  let deps = cache.get(ctx);
  if (deps) return deps;
  deps = createStacksDeps({
    runner: ctx.runner,
    tool: createComposeTool(ctx.runner, process.env),
    stacks: createSqliteStackStore(ctx),
    locks: ctx.locks,
    stacksDir: ctx.paths.stacksDir,
    appDataRoot: ctx.paths.real(APPDATA_ROOT),
    environ: () => process.env,
    updates: async (name) => updatesOf(ctx, name),
    procDir: ctx.paths.procDir,
  });
  cache.set(ctx, deps);
  return deps;
}

/** The stack jobs' ports: the backups feature's jobs and plans, the conditions, the drift watcher. */
export function stackJobPorts(ctx: AppContext): StackJobPorts {
  return {
    stacks: stacksDeps(ctx),
    backups: {
      runningOf(name) {
        const restoring = ctx.jobs
          .runningOf(backupRestoreJob)
          .filter((j) => j.params.part.kind === 'stack' && j.params.part.name === name);
        const backingUp = ctx.jobs
          .runningOf(backupRunJob)
          .filter((j) => planHoldsStack(ctx, j.params.plan, name));
        return restoring[0] ?? backingUp[0] ?? null;
      },
      planCovering: (name) => planCovering(ctx, name),
      hasPlan: (plan) =>
        ctx.db
          .select({ name: backupPlans.name })
          .from(backupPlans)
          .where(eq(backupPlans.name, plan))
          .get() !== undefined,
      async runPlan(plan) {
        const row = ctx.db.select().from(backupPlans).where(eq(backupPlans.name, plan)).get();
        if (!row) return null;
        const { view, completed } = await ctx.jobs.start(
          backupRunJob,
          { plan, destination: row.destination },
          { target: plan, actor: null, auditOperation: 'backups.run' },
        );
        const ended = await completed;
        return { jobId: view.id, state: ended.state, error: ended.error?.message ?? null };
      },
    },
    conditions: {
      openKeys: async (prefix) => openConditions(ctx, prefix).map((r) => r.key),
      hold: (key, report, source) => ctx.conditions.hold(key, report, source),
      clear: (key) => ctx.conditions.clear(key),
    },
    forgetFile: (path) => ctx.generated.forget(path),
  };
}

/** The runner's implementation of one stack job kind, on this server's ports. */
export const stackJob = (ctx: AppContext, kind: StackJobKind) =>
  stackJobImplementation(() => stackJobPorts(ctx), kind);

/** The catalog-source operations' ports, for one request of `actor`. */
export function sourcesDeps(ctx: AppContext, actor: Actor | null): SourcesDeps {
  return {
    catalogDir: ctx.paths.catalogDir,
    store: createSqliteSourceStore(ctx, actor),
    conditions: ctx.conditions,
    clock: ctx.clock,
    log: ctx.logger,
  };
}

const installers = new WeakMap<AppContext, Installer>();

/** The Engine named by the daemon's DOCKER_HOST (read at each call, so a test may point it elsewhere). */
function lazyEngine(): DockerEngine {
  const engine = () => createDockerEngine({ socketPath: engineSocket(process.env['DOCKER_HOST']) });
  return {
    containers: () => engine().containers(),
    portBindings: (id) => engine().portBindings(id),
    networks: () => engine().networks(),
  };
}

export function catalogFor(ctx: AppContext) {
  return createCatalog({ catalogDir: ctx.paths.catalogDir, sources: async () => readCatalogSources(ctx) });
}

/** One Installer per server context, wired to the real adapters. */
export function installerFor(ctx: AppContext): Installer {
  let installer = installers.get(ctx);
  if (installer) return installer;
  installer = new Installer({
    paths: ctx.paths,
    clock: ctx.clock,
    catalog: catalogFor(ctx),
    stacks: createSqliteStackStore(ctx),
    locks: ctx.locks,
    compose: createComposeTool(ctx.runner, process.env),
    engine: lazyEngine(),
    environ: toolEnvironment(process.env),
    shares: async () =>
      ctx.db
        .select({ name: shares.name })
        .from(shares)
        .all()
        .map((s) => s.name),
    random: (n) => ctx.random.bytes(n),
  });
  installers.set(ctx, installer);
  return installer;
}
