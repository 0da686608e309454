import {
  paritySchedules,
  parityStatus,
  requestScrub,
  requestSync,
  saveParitySettings,
  scrubImplementation,
  scrubJob,
  syncImplementation,
  syncJob,
} from '@appliance/parity';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { jobAccepted } from '../jobs/schemas.ts';
import {
  parityJobDeps,
  parityRequestPorts,
  parityScheduleDeps,
  paritySettingsPorts,
  parityStatusDeps,
} from './deps.ts';
import {
  ParityDiffSchema,
  ParitySettingsBody,
  ParitySettingsSchema,
  ParityStatusSchema,
  ScrubBody,
  SyncBody,
} from './schemas.ts';
import { readParitySettings, readParityState } from './store.ts';

/** The answers of a route that starts a sync or a scrub. */
const jobAnswers = (what: string) => ({
  202: jobAccepted(what),
  409: { description: 'no_array, job_running, import_in_progress', schema: ErrorBody },
  501: { description: 'snapraid is not installed', schema: ErrorBody },
});

/**
 * Parity that protects (issue 27): status, sync and scrub on demand as jobs, the schedule and the
 * guard's thresholds in the settings. The jobs, their schedules and the status are
 * @appliance/parity's, over the ports wired in ./deps.ts.
 */
export const feature: Feature = {
  name: 'parity',
  raises: ['sync_succeeded', 'sync_failed', 'sync_blocked_threshold', 'scrub_errors_found', 'array_degraded'],
  start(ctx) {
    const deps = parityJobDeps(ctx);
    ctx.jobs.register(syncJob, syncImplementation(deps));
    ctx.jobs.register(scrubJob, scrubImplementation(deps));
    for (const schedule of paritySchedules(parityScheduleDeps(ctx))) ctx.scheduler.register(schedule);
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/disks/array/parity',
      role: 'viewer',
      summary: 'Parity status: in sync or not, last sync and scrub, pending changes, running job, next runs',
      tags: ['parity'],
      responses: {
        200: { description: 'Parity status (recorded by the last jobs)', schema: ParityStatusSchema },
      },
      handler: ({ ctx }) => ok(parityStatus(parityStatusDeps(ctx))),
    }),
    defineRoute({
      method: 'GET',
      path: '/disks/array/parity/diff',
      role: 'viewer',
      summary: 'The last snapraid diff with its paths (the removed files of a blocked sync)',
      tags: ['parity'],
      responses: { 200: { description: 'The last diff, or null', schema: ParityDiffSchema } },
      handler: ({ ctx }) => ok({ diff: readParityState(ctx.db).lastDiff }),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array/parity/sync',
      role: 'admin',
      summary: 'Start a parity sync (the deletion guard runs first unless force is true)',
      tags: ['parity'],
      body: SyncBody,
      // every field has a default: `POST …/sync` with no body is a plain guarded sync
      emptyBody: 'object',
      responses: jobAnswers('The sync job'),
      handler: async ({ ctx, actor, body }) =>
        accepted(await requestSync(parityRequestPorts(ctx), actor, body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array/parity/scrub',
      role: 'admin',
      summary: 'Start a scrub of percent % of the array, of data not scrubbed for olderThanDays days',
      tags: ['parity'],
      body: ScrubBody,
      emptyBody: 'object',
      responses: jobAnswers('The scrub job'),
      handler: async ({ ctx, actor, body }) =>
        accepted(await requestScrub(parityRequestPorts(ctx), actor, body)),
    }),
    defineRoute({
      method: 'GET',
      path: '/settings/parity',
      role: 'viewer',
      summary: 'The parity schedule (daily sync, periodic scrub) and the deletion guard thresholds',
      tags: ['parity', 'settings'],
      responses: { 200: { description: 'Parity settings', schema: ParitySettingsSchema } },
      handler: ({ ctx }) => ok(readParitySettings(ctx.db)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/settings/parity',
      role: 'admin',
      summary: 'Replace the parity schedule and guard thresholds (validated, audited)',
      tags: ['parity', 'settings'],
      body: ParitySettingsBody,
      responses: { 200: { description: 'Parity settings', schema: ParitySettingsSchema } },
      handler: async ({ ctx, actor, body }) =>
        ok(await saveParitySettings(paritySettingsPorts(ctx), actor, body)),
    }),
  ],
};
