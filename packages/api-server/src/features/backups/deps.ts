/**
 * The server's side of `@appliance/backups`' ports: the plans and their state in SQLite, the
 * repository password unsealed by the context's sealer, the settings, the registered external
 * disk as the destination, the stacks' compose tool, the configuration export, events and
 * staleness. The jobs themselves are the package's (`backupRunHandler`, `backupRestoreHandler`,
 * `backupDrillHandler`).
 */
import path from 'node:path';
import { startExport } from '@appliance/archive-preview';
import {
  archiveFileWriter,
  type BackupPorts,
  type BackupStacks,
  checkExternalDestination,
  checkStaleness,
  createBackupStacks,
  drillEnd,
  type ExternalDestinationDeps,
  externalDestinations,
  type PlanAdminPorts,
  type PlanTx,
  type ReadPorts,
  runEnd,
  type ScheduleDeps,
} from '@appliance/backups';
import { isoMillis } from '@appliance/common';
import { createComposeTool, toolEnvironment } from '@appliance/template-installer';
import { CONTAINER_KEY_PREFIX } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { VERSION } from '../../version.ts';
import { exportDeps } from '../config-archive/deps.ts';
import { stackRows } from '../apps/store.ts';
import { createExternalDiskStore } from '../external-disks/store.ts';
import { shareNames } from '../shares/store.ts';
import { readSettings } from '../settings/index.ts';
import { mountDeps } from '../external-disks/deps.ts';
import { actorJobs, auditedTransaction, raiseEvent, settingsTimeZone } from '../ports.ts';
import {
  deletePlan,
  ensureState,
  forgetSnapshots,
  insertPlan,
  passphraseSet,
  readPlan,
  readPlans,
  readState,
  recordSnapshot,
  snapshotSizes,
  updatePlan,
  updateState,
} from './store.ts';

/** The stacks' compose tool and `docker`, with the daemon's DOCKER_HOST (read at each call). */
export function stackControl(ctx: AppContext): BackupStacks {
  // one tool: it detects `docker compose` / `docker-compose` once, not at every compose call
  const composeTool = createComposeTool(ctx.runner, process.env);
  return createBackupStacks({
    runner: ctx.runner,
    stacksDir: ctx.paths.stacksDir,
    compose: async () => {
      const tool = await composeTool.detect();
      return { command: tool.command, prefix: tool.prefix };
    },
    get env() {
      return toolEnvironment(process.env);
    },
    // a condition that held before the stop and holds after is the same condition
    pauseWatch: (stack) => ctx.watchers.pause([`${CONTAINER_KEY_PREFIX}${stack}/`]),
  });
}

/** The registered external disks as backup destinations (`@appliance/external-disk`'s ports). */
export const destinationDeps = (ctx: AppContext): ExternalDestinationDeps => ({
  mount: mountDeps(ctx, null),
  procDir: ctx.paths.procDir,
  real: (p) => ctx.paths.real(p),
});

export function backupPorts(ctx: AppContext): BackupPorts {
  const now = () => isoMillis(ctx.clock.now());
  return {
    store: {
      readPlan: (name) => readPlan(ctx.db, name),
      readState: (plan) => readState(ctx.db, plan),
      updateState: (plan, patch) => ctx.writes.run((db) => updateState(db, plan, now(), patch)),
      recordSnapshot: (row) => ctx.writes.run((db) => recordSnapshot(db, row)),
      snapshotSizes: (plan) => snapshotSizes(ctx.db, plan),
      recordRetention: (plan, removed, patch) =>
        ctx.writes.run((db) => {
          forgetSnapshots(db, removed);
          updateState(db, plan, now(), patch);
        }),
      recordRun: (plan, at, jobId, state) =>
        ctx.writes.run((db) =>
          updateState(db, plan, at, runEnd(ensureState(db, plan, at), at, jobId, state)),
        ),
      recordDrill: (plan, at, jobId, state) =>
        ctx.writes.run((db) =>
          updateState(db, plan, at, drillEnd(ensureState(db, plan, at), at, jobId, state)),
        ),
    },
    secrets: {
      repositoryPassword: (plan) => {
        const sealed = readPlan(ctx.db, plan)?.sealedPassword ?? null;
        return sealed === null ? null : ctx.sealer.unsealText(sealed);
      },
    },
    settings: () => {
      const s = readSettings(ctx.db);
      return { hostname: s.hostname, timeZone: s.timezone };
    },
    destinations: externalDestinations(destinationDeps(ctx)),
    stacks: stackControl(ctx),
    paths: {
      real: (p) => ctx.paths.real(p),
      logical: (p) => ctx.paths.logical(p),
      tmpDir: path.join(ctx.paths.stateDir, 'tmp'),
      resticCache: path.join(ctx.paths.stateDir, 'cache', 'restic'),
    },
    // the configuration archive (01 §1), the export's own code
    configArchive: archiveFileWriter(() => startExport(exportDeps(ctx, VERSION))),
    events: {
      raise: raiseEvent(ctx),
      runSucceeded: async () => {
        await checkStaleness(scheduleDeps(ctx));
      },
    },
    runner: ctx.runner,
    clock: ctx.clock,
    logger: ctx.logger,
  };
}

/** The ports of a read of a repository outside a job (snapshot list, configuration archive). */
export const readPorts = (ctx: AppContext): ReadPorts => ({ ...backupPorts(ctx), holds: ctx.jobs });

/** The ports of the plan operations for one request (`actor` audits the writes and jobs). */
export function planPorts(ctx: AppContext, actor: Actor | null): PlanAdminPorts {
  return {
    plans: {
      list: () => readPlans(ctx.db),
      read: (name) => readPlan(ctx.db, name),
      state: (plan) => readState(ctx.db, plan),
    },
    write: auditedTransaction(
      ctx,
      actor,
      (db): Omit<PlanTx, 'audit'> => ({
        read: (name) => readPlan(db, name),
        insert: (name, spec, sealed, at) => insertPlan(db, name, spec, sealed, at),
        update: (name, spec, at) => updatePlan(db, name, spec, at),
        delete: (name) => deletePlan(db, name),
      }),
    ),
    facts: {
      stacks: () => stackRows(ctx.db),
      shares: () => shareNames(ctx.db),
      destinations: () => createExternalDiskStore(ctx, null).listRows(),
      passphraseSet: () => passphraseSet(ctx.db),
    },
    seal: (password) => ctx.sealer.seal(password),
    randomBytes: (size) => ctx.random.bytes(size),
    jobs: actorJobs(ctx, actor),
    checkDestination: (label) => checkExternalDestination(destinationDeps(ctx), label),
    schedules: scheduleDeps(ctx),
    clock: ctx.clock,
  };
}

/** The schedules' side of the plans and the server's scheduler, job runner and conditions. */
export function scheduleDeps(ctx: AppContext): ScheduleDeps {
  return {
    plans: {
      list: () => readPlans(ctx.db),
      state: (plan) => readState(ctx.db, plan),
      withState: async () => {
        const plans = readPlans(ctx.db);
        const at = isoMillis(ctx.clock.now());
        return ctx.writes.run((db) => plans.map((plan) => ({ plan, state: ensureState(db, plan.name, at) })));
      },
      markScheduled: (plan, field, at) => ctx.writes.run((db) => updateState(db, plan, at, { [field]: at })),
    },
    timeZone: settingsTimeZone(ctx),
    clock: ctx.clock,
    start: (kind, params, options) => ctx.jobs.start(kind, params, options),
    scheduler: ctx.scheduler,
    conditions: ctx.conditions,
    logger: ctx.logger,
  };
}
