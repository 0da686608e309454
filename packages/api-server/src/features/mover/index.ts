/**
 * The mover (issue 37): files of cache-then-move shares go from the cache to the data disks, as a
 * job in the array group (never beside a parity sync or a disk job), daily before the parity sync,
 * on demand, and reported in `GET /mover`. The job, its schedule and the work are
 * @appliance/shares' (`moverJob`, `moverImplementation`, `moverSchedule`), and so are the status,
 * the run on demand and the settings' replacement; this folder wires their ports (deps.ts), stores
 * the settings (store.ts) and serves them.
 */
import {
  moverImplementation,
  moverJob,
  moverSchedule,
  moverStatus,
  runMoverNow,
  setMoverSettings,
} from '@appliance/shares';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { jobAccepted } from '../jobs/schemas.ts';
import { hasCache, moverJobDeps, moverPorts, moverScheduleDeps } from './deps.ts';
import { MoverRunBody, MoverSettingsBody, MoverSettingsSchema, MoverStatusSchema } from './schemas.ts';
import { readMoverSettings } from './store.ts';

export const feature: Feature = {
  name: 'mover',
  // observed once the array has a cache: without one the mover has nothing to move
  raises: [{ eventType: 'mover_skipping_files', when: (ctx) => hasCache(ctx) }],
  start(ctx) {
    ctx.jobs.register(moverJob, moverImplementation(moverJobDeps(ctx)));
    ctx.scheduler.register(moverSchedule(moverScheduleDeps(ctx)));
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/mover',
      role: 'viewer',
      summary: 'The mover: last run (moved files and bytes, skipped files and why), running job, next run',
      tags: ['mover'],
      responses: { 200: { description: 'Mover status', schema: MoverStatusSchema } },
      handler: ({ ctx }) => ok(moverStatus(moverPorts(ctx, null))),
    }),
    defineRoute({
      method: 'POST',
      path: '/mover/run',
      role: 'admin',
      summary: 'Run the mover now (files of cache-then-move shares from the cache to the data disks)',
      tags: ['mover'],
      body: MoverRunBody,
      emptyBody: 'object',
      responses: {
        202: jobAccepted('The mover job'),
        409: { description: 'no_cache, job_running, import_in_progress', schema: ErrorBody },
      },
      handler: async ({ ctx, actor, body }) => accepted(await runMoverNow(moverPorts(ctx, actor), body)),
    }),
    defineRoute({
      method: 'GET',
      path: '/settings/mover',
      role: 'viewer',
      summary: 'The mover schedule (daily time, before the parity sync) and its verification',
      tags: ['mover', 'settings'],
      responses: { 200: { description: 'Mover settings', schema: MoverSettingsSchema } },
      handler: ({ ctx }) => ok(readMoverSettings(ctx.db)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/settings/mover',
      role: 'admin',
      summary: 'Replace the mover schedule and verification (audited)',
      tags: ['mover', 'settings'],
      body: MoverSettingsBody,
      responses: { 200: { description: 'Mover settings', schema: MoverSettingsSchema } },
      handler: async ({ ctx, actor, body }) => ok(await setMoverSettings(moverPorts(ctx, actor), body)),
    }),
  ],
};
