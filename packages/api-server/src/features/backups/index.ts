import {
  backupDrillHandler,
  backupDrillJob,
  backupRestoreHandler,
  backupRestoreJob,
  backupRunHandler,
  backupRunJob,
  checkExternalDestination,
  checkPlan,
  checkStaleness,
  drillDue,
  planDue,
  planStale,
  registerBackupSchedules,
  configCopyPath,
  type PlanSpec,
  passwordMissing,
  planNotFound,
  type RunParams,
  repositoryPath,
} from '@appliance/backups';
import { AppError, confirmationRequired, isoMillis } from '@appliance/common';
import { externalMountpoint } from '@appliance/external-disk';
import type { AppContext } from '../../context.ts';
import { accepted, created, defineRoute, noContent, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import type { Actor } from '../../services/audit.ts';
import type { Feature } from '../feature.ts';
import { createExternalDiskStore } from '../external-disks/store.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { backupPorts, destinationDeps, requirePlan, scheduleDeps, setAppVersion } from './deps.ts';
import type { JobKind } from '@appliance/jobs';
import { VERSION } from '../../version.ts';
import { snapshotRoutes } from './snapshot-routes.ts';
import {
  CreatePlanBody,
  DeletePlanBody,
  NoBody,
  PlanListSchema,
  PlanParams,
  PlanSchema,
  UpdatePlanBody,
} from './schemas.ts';
import {
  deletePlan,
  insertPlan,
  planFacts,
  readPlan,
  readPlans,
  readState,
  type StoredPlan,
  updatePlan,
} from './store.ts';

/** A plan as the API shows it: never its password, only whether it is known here. */
function planView(ctx: AppContext, plan: StoredPlan) {
  const state = readState(ctx.db, plan.name);
  const { sealedPassword, ...rest } = plan;
  const schedules = scheduleDeps(ctx);
  const next = planDue(schedules, plan, state);
  const nextDrill = drillDue(schedules, plan, state);
  return {
    ...rest,
    repository: repositoryPath(externalMountpoint(plan.destination), plan.name),
    latestConfigArchive: plan.configuration
      ? configCopyPath(externalMountpoint(plan.destination), plan.name)
      : null,
    hasPassword: sealedPassword !== null,
    status: {
      lastRun: state?.lastRunJobId
        ? { jobId: state.lastRunJobId, state: state.lastRunState ?? 'unknown', at: state.lastRunAt }
        : null,
      lastSuccessAt: state?.lastSuccessAt ?? null,
      nextRunAt: next ? isoMillis(next) : null,
      lastDrill: state?.lastDrillJobId
        ? { jobId: state.lastDrillJobId, state: state.lastDrillState ?? 'unknown', at: state.lastDrillAt }
        : null,
      nextDrillAt: nextDrill ? isoMillis(nextDrill) : null,
      stale: planStale(schedules, plan, state),
    },
  };
}

/** checkPlan with the installation's facts (stacks, shares, destinations, passphrase). */
async function refusePlan(ctx: AppContext, spec: PlanSpec): Promise<void> {
  const rows = await createExternalDiskStore(ctx, null).listRows();
  const err = checkPlan(
    spec,
    planFacts(
      ctx.db,
      rows.map((r) => ({ label: r.label, backupDestination: r.backupDestination })),
    ),
  );
  if (err) throw err;
}

/** A running job (run, drill, restore) of this plan. */
function runningJobOf(ctx: AppContext, plan: string) {
  return [
    ...ctx.jobs.runningOf(backupRunJob),
    ...ctx.jobs.runningOf(backupDrillJob),
    ...ctx.jobs.runningOf(backupRestoreJob),
  ].find((j) => j.params.plan === plan);
}

const changedFields = (before: PlanSpec, after: PlanSpec) =>
  (Object.keys(after) as (keyof PlanSpec)[]).filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );

/** Starts a run or a drill of a plan on request: a missing disk or password is refused at once. */
async function startPlanJob(ctx: AppContext, actor: Actor, name: string, kind: JobKind<RunParams, unknown>) {
  const plan = requirePlan(ctx, name);
  if (plan.sealedPassword === null) throw passwordMissing(plan.name);
  await checkExternalDestination(destinationDeps(ctx), plan.destination);
  // a drill reads the repository's snapshots, whatever box made them (after a configuration
  // restore this box has run nothing yet): the job says when there is none
  const started = await ctx.jobs.start(
    kind,
    { plan: plan.name, destination: plan.destination },
    { target: plan.name, actor, auditOperation: kind === backupRunJob ? 'backups.run' : 'backups.drill' },
  );
  return started.view;
}

const errors = {
  400: { description: 'Bad input', schema: ErrorBody },
  404: { description: 'Unknown plan', schema: ErrorBody },
};

export const feature: Feature = {
  name: 'backups',
  raises: [
    'config_backup_failed',
    'appdata_backup_failed',
    'backup_destination_stale',
    'restore_drill_failed',
  ],
  start: async (ctx) => {
    setAppVersion(VERSION);
    const ports = backupPorts(ctx);
    ctx.jobs.register(backupRunJob, backupRunHandler(ports));
    ctx.jobs.register(backupDrillJob, backupDrillHandler(ports));
    ctx.jobs.register(backupRestoreJob, backupRestoreHandler(ports));
    registerBackupSchedules(scheduleDeps(ctx));
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/backups/plans',
      role: 'viewer',
      summary: 'Backup plans with their last run, next run, last drill and staleness',
      tags: ['backups'],
      responses: { 200: { description: 'Plans by name', schema: PlanListSchema } },
      handler: ({ ctx }) => ok({ plans: readPlans(ctx.db).map((p) => planView(ctx, p)) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/backups/plans/:name',
      role: 'viewer',
      summary: 'One backup plan',
      tags: ['backups'],
      params: PlanParams,
      responses: { 200: { description: 'The plan', schema: PlanSchema }, ...errors },
      handler: ({ ctx, params }) => ok(planView(ctx, requirePlan(ctx, params.name))),
    }),
    defineRoute({
      method: 'POST',
      path: '/backups/plans',
      role: 'admin',
      summary: 'Create a backup plan (its repository password is generated and sealed)',
      tags: ['backups'],
      body: CreatePlanBody,
      responses: {
        201: { description: 'The plan', schema: PlanSchema },
        ...errors,
        409: {
          description: 'backup_plan_exists, not_a_backup_destination, backup_passphrase_required',
          schema: ErrorBody,
        },
      },
      handler: async ({ ctx, actor, body }) => {
        const { name, ...spec } = body;
        await refusePlan(ctx, spec);
        const at = isoMillis(ctx.clock.now());
        // 32 random bytes: restic's key derivation protects the repository with it
        const sealed = ctx.sealer.seal(ctx.random.bytes(32).toString('base64url'));
        await ctx.writes.run((db) => {
          if (readPlan(db, name))
            throw new AppError(
              409,
              'backup_plan_exists',
              `A backup plan named "${name}" exists already: choose another name, or change it with PUT.`,
              {
                plan: name,
              },
            );
          insertPlan(db, name, spec, sealed, at);
          ctx.audit.record(db, actor, {
            operation: 'backups.plan.create',
            target: name,
            details: { ...spec },
          });
        });
        return created(planView(ctx, requirePlan(ctx, name)));
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/backups/plans/:name',
      role: 'admin',
      summary: 'Replace a backup plan’s settings (its password and snapshots stay)',
      tags: ['backups'],
      params: PlanParams,
      body: UpdatePlanBody,
      responses: { 200: { description: 'The plan', schema: PlanSchema }, ...errors },
      handler: async ({ ctx, actor, params, body }) => {
        const before = requirePlan(ctx, params.name);
        await refusePlan(ctx, body);
        await ctx.writes.run((db) => {
          if (!readPlan(db, params.name)) throw planNotFound(params.name);
          updatePlan(db, params.name, body, isoMillis(ctx.clock.now()));
          ctx.audit.record(db, actor, {
            operation: 'backups.plan.update',
            target: params.name,
            details: { changed: changedFields(before, body) },
          });
        });
        return ok(planView(ctx, requirePlan(ctx, params.name)));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/backups/plans/:name',
      role: 'admin',
      summary: 'Delete a backup plan (typed confirmation "DELETE <name>"); its snapshots stay on the disk',
      tags: ['backups'],
      params: PlanParams,
      body: DeletePlanBody,
      responses: {
        204: { description: 'Deleted' },
        ...errors,
        409: { description: 'confirmation_required, job_running', schema: ErrorBody },
      },
      handler: async ({ ctx, actor, params, body }) => {
        requirePlan(ctx, params.name);
        const expected = `DELETE ${params.name}`;
        if (body.confirmation !== expected) {
          const e = confirmationRequired(expected);
          throw new AppError(
            409,
            e.code,
            `Deleting plan ${params.name} forgets its repository password: its snapshots stay on the disk but this box can no longer read them (export the configuration first to keep it). Type exactly: ${expected}`,
            e.details,
          );
        }
        const running = runningJobOf(ctx, params.name);
        if (running)
          throw new AppError(
            409,
            'job_running',
            `A ${running.type} of plan ${params.name} is running (job ${running.id}): wait for it, then delete the plan.`,
            {
              jobId: running.id,
              type: running.type,
              target: running.target,
            },
          );
        await ctx.writes.run((db) => {
          deletePlan(db, params.name);
          ctx.audit.record(db, actor, { operation: 'backups.plan.delete', target: params.name });
        });
        await checkStaleness(scheduleDeps(ctx));
        return noContent();
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/backups/plans/:name/run',
      role: 'admin',
      summary: 'Run a backup plan now (a job; progress on GET /events)',
      tags: ['backups'],
      params: PlanParams,
      body: NoBody,
      emptyBody: 'object',
      responses: {
        202: { description: 'The job (Location: /api/v1/jobs/<id>)', schema: JobSchema },
        ...errors,
        409: {
          description: 'backup_destination_missing, job_running, repository_password_missing',
          schema: ErrorBody,
        },
      },
      handler: async ({ ctx, actor, params }) =>
        accepted(await startPlanJob(ctx, actor!, params.name, backupRunJob)),
    }),
    defineRoute({
      method: 'POST',
      path: '/backups/plans/:name/drill',
      role: 'admin',
      summary:
        'Run a restore drill of a plan now: restic check of a tenth of the data, then a verified restore of each latest snapshot',
      tags: ['backups'],
      params: PlanParams,
      body: NoBody,
      emptyBody: 'object',
      responses: {
        202: { description: 'The job (Location: /api/v1/jobs/<id>)', schema: JobSchema },
        ...errors,
        409: { description: 'backup_destination_missing, job_running', schema: ErrorBody },
      },
      handler: async ({ ctx, actor, params }) =>
        accepted(await startPlanJob(ctx, actor!, params.name, backupDrillJob)),
    }),
    ...snapshotRoutes,
  ],
};
