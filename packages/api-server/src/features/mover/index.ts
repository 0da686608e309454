/**
 * The mover (issue 37): files of cache-then-move shares go from the cache to the data disks, as a
 * job in the array group (never beside a parity sync or a disk job), daily before the parity sync,
 * on demand, and reported in `GET /mover`. The job, its schedule and the work are
 * @appliance/shares' (`moverJob`, `moverImplementation`, `moverSchedule`); this folder wires their
 * ports (deps.ts), stores the settings (store.ts) and serves them.
 */
import { isoMillis } from '@appliance/common';
import type { JobView } from '@appliance/jobs';
import {
  MOVER_TARGET,
  type MoverResult,
  type MoverRunParams,
  moverImplementation,
  moverJob,
  moverSchedule,
} from '@appliance/shares';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { hasCache, moverJobDeps, moverScheduleDeps, moverShares, requireCache } from './deps.ts';
import { MoverRunBody, MoverSettingsBody, MoverSettingsSchema, MoverStatusSchema } from './schemas.ts';
import { readMoverSettings, writeMoverSettings } from './store.ts';

function lastRun(view: JobView<MoverRunParams, MoverResult> | null) {
  if (!view) return null;
  const r = view.result;
  return {
    jobId: view.id,
    state: view.state,
    trigger: view.trigger,
    startedAt: view.startedAt,
    endedAt: view.endedAt,
    movedFiles: r?.movedFiles ?? null,
    movedBytes: r?.movedBytes ?? null,
    skippedCount: r?.skippedCount ?? null,
    skippedByReason: r?.skippedByReason ?? null,
    skipped: r?.skipped ?? [],
    error: view.error ? { code: view.error.code, message: view.error.message } : null,
  };
}

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
      handler: ({ ctx }) => {
        const running = ctx.jobs.runningOf(moverJob)[0] ?? null;
        const last = ctx.jobs.latest(moverJob, [
          'succeeded',
          'failed',
          'cancelled',
          'interrupted',
          'blocked',
        ]);
        return ok({
          configured: hasCache(ctx),
          shares: moverShares(ctx).map((s) => s.name),
          settings: readMoverSettings(ctx.db),
          running,
          lastRun: lastRun(last),
          nextRun: ctx.scheduler.view('mover')?.nextDueAt ?? null,
        });
      },
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
        202: { description: 'The mover job (Location: /api/v1/jobs/<id>)', schema: JobSchema },
        409: { description: 'no_cache, job_running, import_in_progress', schema: ErrorBody },
      },
      handler: async ({ ctx, actor, body }) => {
        requireCache(ctx);
        const verify = body.verify ?? readMoverSettings(ctx.db).verify;
        return accepted((await ctx.jobs.start(moverJob, { verify }, { target: MOVER_TARGET, actor })).view);
      },
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
      handler: async ({ ctx, actor, body }) => {
        await ctx.writes.run((db) => {
          const before = readMoverSettings(db);
          writeMoverSettings(db, body, isoMillis(ctx.clock.now()));
          const changed = Object.fromEntries(
            Object.entries(body).filter(([k, val]) => before[k as keyof typeof before] !== val),
          );
          ctx.audit.record(db, actor, { operation: 'settings.mover', target: 'mover', details: { changed } });
        });
        return ok(readMoverSettings(ctx.db));
      },
    }),
  ],
};
