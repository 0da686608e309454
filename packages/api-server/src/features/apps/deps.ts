/**
 * The ports of @appliance/template-installer (stacks, stack jobs, the apps requests, catalog
 * sources, the installer) wired to this server. Loaded on the first apps request or stack job,
 * with the package's heavy half.
 */
import { backupRestoreJob, backupRunJob } from '@appliance/backups';
import { AppError, Refusal } from '@appliance/common';
import {
  type AppsAdapters,
  type AppsPorts,
  createAppsAdapters,
  createStackBackups,
  createStackConditions,
  type SourcesDeps,
  type StackJobKind,
  type StackJobPorts,
  stackJobImplementation,
} from '@appliance/template-installer';
import type { AppContext } from '../../context.ts';
import { refusalStatus } from '../../http/refusal-status.ts';
import type { Actor } from '../../services/audit.ts';
import { actorJobs, auditRecorder } from '../ports.ts';
import {
  createSqliteSourceStore,
  createSqliteStackStore,
  openConditions,
  readBackupPlans,
  readCatalogSources,
} from './store.ts';
import { shareNames } from '../shares/store.ts';

/**
 * The package's operations the routes call, re-exported here so that they load with this module on
 * first use (a dynamic import of the package itself would make the whole package part of the start).
 */
export {
  addSource,
  catalogView,
  createHandMadeStack,
  editStackValues,
  installTemplate,
  listStacks,
  openLogFollow,
  pipeLogFollow,
  previewTemplate,
  refreshSource,
  removeSource,
  requestStackRemoval,
  requestStackUpdate,
  showStack,
  stackLogs,
  startStackJob,
} from '@appliance/template-installer';

const adapters = new WeakMap<AppContext, AppsAdapters>();

/** The stack operations, the installer and the catalog, once per server context. */
function adaptersOf(ctx: AppContext): AppsAdapters {
  let found = adapters.get(ctx);
  if (found) return found;
  found = createAppsAdapters({
    paths: ctx.paths,
    clock: ctx.clock,
    runner: ctx.runner,
    locks: ctx.locks,
    stacks: createSqliteStackStore(ctx),
    environ: process.env,
    sources: async () => readCatalogSources(ctx),
    shares: async () => shareNames(ctx.db),
    openConditions: (prefix) => openConditions(ctx, prefix),
    random: (n) => ctx.random.bytes(n),
  });
  adapters.set(ctx, found);
  return found;
}

export const stacksDeps = (ctx: AppContext) => adaptersOf(ctx).stacks;
export const installerFor = (ctx: AppContext) => adaptersOf(ctx).installer;
export const catalogFor = (ctx: AppContext) => adaptersOf(ctx).catalog;

/** The stack jobs' ports: the backups feature's jobs and plans, the conditions, the drift watcher. */
export function stackJobPorts(ctx: AppContext): StackJobPorts {
  return {
    stacks: stacksDeps(ctx),
    backups: createStackBackups({
      runningRestores: () =>
        ctx.jobs.runningOf(backupRestoreJob).map((j) => ({
          id: j.id,
          stack: j.params.part.kind === 'stack' ? j.params.part.name : null,
        })),
      runningBackups: () => ctx.jobs.runningOf(backupRunJob).map((j) => ({ id: j.id, plan: j.params.plan })),
      plans: () => readBackupPlans(ctx),
      async runPlan({ name: plan, destination }) {
        const { view, completed } = await ctx.jobs.start(
          backupRunJob,
          { plan, destination },
          { target: plan, actor: null, auditOperation: 'backups.run' },
        );
        const ended = await completed;
        return { jobId: view.id, state: ended.state, error: ended.error?.message ?? null };
      },
    }),
    conditions: createStackConditions((prefix) => openConditions(ctx, prefix), ctx.conditions),
    forgetFile: (path) => ctx.generated.forget(path),
  };
}

/** The runner's implementation of one stack job kind, on this server's ports. */
export const stackJob = (ctx: AppContext, kind: StackJobKind) =>
  stackJobImplementation(() => stackJobPorts(ctx), kind);

/** The HTTP status an error is answered with (the server's error map). */
const statusOf = (e: unknown) =>
  e instanceof AppError ? e.status : e instanceof Refusal ? refusalStatus(e.code) : 500;

/** The apps requests' ports, for one request of `actor`. */
export function appsPorts(ctx: AppContext, actor: Actor | null): AppsPorts {
  return {
    jobs: actorJobs(ctx, actor),
    stackJobs: stackJobPorts(ctx),
    installer: installerFor(ctx),
    audit: auditRecorder(ctx, actor),
    statusOf,
    stacksDir: ctx.paths.stacksDir,
    recordFile: (file) => ctx.generated.recordQuietly(file),
    publishProgress: (data) => ctx.events.publish({ type: 'progress', data }),
    uuid: () => ctx.random.uuid(),
  };
}

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
