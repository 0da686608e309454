/**
 * Updates through apt, reboot required, the scheduled reboot (issue 38). The decisions, apt, the
 * reboot and the jobs are @appliance/updates'; here: the routes, the jobs and schedules registered
 * with the context's runner and scheduler, the reboot watcher. Events go through the conditions
 * (raised once, cleared when gone).
 */
import {
  cancelReboot,
  MAX_REBOOT_AHEAD_DAYS,
  REBOOT_KEY,
  rebootStatus,
  rebootWatcher,
  registerUpdateJobs,
  scheduleReboot,
  startUpdatesJob,
  updatesApplyJob,
  updatesCheckJob,
  updatesConfigured as configured,
  updatesStatus,
} from '@appliance/updates';
import type { AppContext } from '../../context.ts';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody, NoBody } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { jobAccepted } from '../jobs/schemas.ts';
import { hostRebootPaths, rebootSchedulePorts, statusPorts, updateJobPorts } from './deps.ts';
import { RebootBody, RebootSchema, UpdatesSchema } from './schemas.ts';
import { readUpdatesState } from './store.ts';

export { REBOOT_INTERVAL_S, systemRebootJob, updatesApplyJob, updatesCheckJob } from '@appliance/updates';

/** Whether this box checks for updates (apt, and the real host or an apt configuration of its own). */
export const updatesConfigured = (ctx: AppContext): boolean => configured(updateJobPorts(ctx, ''));

const aptMissing = { description: 'apt is not installed', schema: ErrorBody };

const rebootView = (ctx: AppContext) =>
  rebootStatus(readUpdatesState(ctx.db), ctx.conditions.holding([REBOOT_KEY])[0] ?? null);

export function updatesFeature(version: string): Feature {
  return {
    name: 'updates',
    raises: [
      'reboot_required',
      { eventType: 'appliance_update_available', when: updatesConfigured },
      { eventType: 'appliance_update_failed', when: updatesConfigured },
    ],
    start(ctx) {
      registerUpdateJobs(ctx.jobs, ctx.scheduler, updateJobPorts(ctx, version));
      ctx.watchers.register(rebootWatcher(() => hostRebootPaths(ctx)));
    },
    routes: [
      defineRoute({
        method: 'GET',
        path: '/updates',
        role: 'viewer',
        summary: 'The last apt check, the upgradable packages (security ones apart), the last apply',
        tags: ['updates'],
        responses: { 200: { description: 'Updates of the Debian packages', schema: UpdatesSchema } },
        handler: ({ ctx }) => ok(updatesStatus(statusPorts(ctx))),
      }),
      defineRoute({
        method: 'POST',
        path: '/updates/check',
        role: 'admin',
        summary: 'Check for updates now (apt-get update, then a simulated upgrade)',
        tags: ['updates'],
        body: NoBody,
        emptyBody: 'object',
        responses: {
          202: jobAccepted('The check job'),
          409: { description: 'job_running, import_in_progress', schema: ErrorBody },
          501: aptMissing,
        },
        handler: async ({ ctx, actor }) =>
          accepted(await startUpdatesJob(updateJobPorts(ctx, version), ctx.jobs, updatesCheckJob, actor)),
      }),
      defineRoute({
        method: 'POST',
        path: '/updates/apply',
        role: 'admin',
        summary:
          'Apply the updates: a configuration archive first, then apt-get upgrade non-interactively (never during an array job)',
        tags: ['updates'],
        body: NoBody,
        emptyBody: 'object',
        responses: {
          202: jobAccepted('The update job'),
          409: {
            description: 'job_running (an array job or another update), import_in_progress',
            schema: ErrorBody,
          },
          501: aptMissing,
        },
        handler: async ({ ctx, actor }) =>
          accepted(await startUpdatesJob(updateJobPorts(ctx, version), ctx.jobs, updatesApplyJob, actor)),
      }),
      defineRoute({
        method: 'GET',
        path: '/system/reboot',
        role: 'viewer',
        summary: 'Whether a reboot is required (and for which packages), and the reboot scheduled',
        tags: ['updates'],
        responses: { 200: { description: 'Reboot state', schema: RebootSchema } },
        handler: ({ ctx }) => ok(rebootView(ctx)),
      }),
      defineRoute({
        method: 'POST',
        path: '/system/reboot',
        role: 'admin',
        summary: `Schedule a reboot (at: RFC 3339, at most ${MAX_REBOOT_AHEAD_DAYS} days ahead; none: now); it waits for any array job to end`,
        tags: ['updates'],
        body: RebootBody,
        emptyBody: 'object',
        responses: {
          202: { description: 'The reboot, scheduled', schema: RebootSchema },
          400: { description: 'at is not a time within 30 days', schema: ErrorBody },
        },
        handler: async ({ ctx, actor, body }) => {
          const by = actor ? (actor.kind === 'local' ? 'local' : actor.username) : 'system';
          await scheduleReboot(rebootSchedulePorts(ctx, actor), body.at, by);
          return ok(rebootView(ctx), 202);
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: '/system/reboot',
        role: 'admin',
        summary: 'Cancel the scheduled reboot (nothing scheduled: nothing to do)',
        tags: ['updates'],
        responses: { 200: { description: 'Reboot state, none scheduled', schema: RebootSchema } },
        handler: async ({ ctx, actor }) => {
          await cancelReboot(rebootSchedulePorts(ctx, actor));
          return ok(rebootView(ctx));
        },
      }),
    ],
  };
}
