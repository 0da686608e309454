import {
  backupDrillJob,
  backupRunJob,
  createPlan,
  deletePlan,
  listPlanViews,
  planViewOf,
  registerBackupJobs,
  registerBackupSchedules,
  startPlanJob,
  updatePlan,
} from '@appliance/backups';
import { accepted, created, defineRoute, noContent, ok } from '../../http/route.ts';
import { ErrorBody, NoBody } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { jobAccepted } from '../jobs/schemas.ts';
import { backupPorts, planPorts, scheduleDeps } from './deps.ts';
import { snapshotRoutes } from './snapshot-routes.ts';
import {
  CreatePlanBody,
  DeletePlanBody,
  PlanErrors as errors,
  PlanListSchema,
  PlanParams,
  PlanSchema,
  UpdatePlanBody,
} from './schemas.ts';

export const feature: Feature = {
  name: 'backups',
  raises: [
    'config_backup_failed',
    'appdata_backup_failed',
    'backup_destination_stale',
    'restore_drill_failed',
  ],
  start: async (ctx) => {
    registerBackupJobs(ctx.jobs, backupPorts(ctx));
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
      handler: ({ ctx }) => ok({ plans: listPlanViews(planPorts(ctx, null)) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/backups/plans/:name',
      role: 'viewer',
      summary: 'One backup plan',
      tags: ['backups'],
      params: PlanParams,
      responses: { 200: { description: 'The plan', schema: PlanSchema }, ...errors },
      handler: ({ ctx, params }) => ok(planViewOf(planPorts(ctx, null), params.name)),
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
        return created(await createPlan(planPorts(ctx, actor), name, spec));
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
      handler: async ({ ctx, actor, params, body }) =>
        ok(await updatePlan(planPorts(ctx, actor), params.name, body)),
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
        await deletePlan(planPorts(ctx, actor), params.name, body.confirmation);
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
        202: jobAccepted('The job'),
        ...errors,
        409: {
          description: 'backup_destination_missing, job_running, repository_password_missing',
          schema: ErrorBody,
        },
      },
      handler: async ({ ctx, actor, params }) =>
        accepted(await startPlanJob(planPorts(ctx, actor), params.name, backupRunJob)),
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
        202: jobAccepted('The job'),
        ...errors,
        409: { description: 'backup_destination_missing, job_running', schema: ErrorBody },
      },
      handler: async ({ ctx, actor, params }) =>
        accepted(await startPlanJob(planPorts(ctx, actor), params.name, backupDrillJob)),
    }),
    ...snapshotRoutes,
  ],
};
