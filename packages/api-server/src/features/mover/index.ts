/**
 * The mover (issue 37): files of cache-then-move shares go from the cache to the data disks, as a
 * job in the array group (never beside a parity sync or a disk job), daily before the parity sync,
 * on demand, and reported in `GET /mover`. The work is @appliance/shares' `runMover`; this folder
 * wires it (deps.ts), stores its settings (store.ts) and serves it.
 */
import { isoMillis, nextDailySlot } from '@appliance/common';
import type { MoverResult } from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { defineJob, type JobImplementation, type JobView } from '@appliance/jobs';
import { readSettings as readArraySettings } from '../disks/store.ts';
import type { Feature } from '../feature.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { readSettings } from '../settings/index.ts';
import { hasCache, journalDir, moverOptions, moverShares, requireCache } from './deps.ts';
import { MoverRunBody, MoverSettingsBody, MoverSettingsSchema, MoverStatusSchema } from './schemas.ts';
import { readMoverSettings, writeMoverSettings } from './store.ts';

const TARGET = '/mnt/cache';

interface RunParams {
  verify: 'size-mtime' | 'sha256';
}

/** `mover.run`: files of cache-then-move shares from the cache to the data disks (array group). */
export const moverJob = defineJob<RunParams, MoverResult>({
  type: 'mover.run',
  title: 'mover',
  groups: ['array'],
});

/** The heavy half (the mover and its adapters) loads on the first run. */
const shares = () => import('@appliance/shares');

function moverImplementation(ctx: AppContext): JobImplementation<RunParams, MoverResult> {
  return {
    async run(job, params) {
      job.phase('check');
      const options = await moverOptions(ctx);
      const { runMover } = await shares();
      job.phase('move', { cancellable: true });
      return runMover({
        ...options,
        verify: params.verify,
        signal: job.signal,
        onSpawn: (pid) => job.pid(pid),
        onOutput: (line) => job.output(line),
        onProgress: (p) =>
          job.progress({
            percent: p.bytesTotal > 0 ? Math.floor((p.bytesDone / p.bytesTotal) * 100) : null,
            bytesDone: p.bytesDone,
            bytesTotal: p.bytesTotal,
            filesDone: p.filesDone,
            filesTotal: p.filesTotal,
            share: p.share,
          }),
        ...(ctx.hooks.moverBeforeBatch ? { beforeBatch: ctx.hooks.moverBeforeBatch } : {}),
        ...(ctx.hooks.moverBatch ? { batch: ctx.hooks.moverBatch } : {}),
      });
    },
    async after(view) {
      const r = view.result;
      if (!r || r.skippedCount === 0) return;
      const { skipEvent } = await shares();
      try {
        await ctx.hooks.raise?.(skipEvent(r));
      } catch (err) {
        ctx.logger.error('mover event not raised', { error: String(err) });
      }
    },
    async recover() {
      const { recoverMover } = await shares();
      const r = await recoverMover(journalDir(ctx));
      return {
        message:
          r === null
            ? 'The service stopped while the mover ran, between two files: nothing was half moved. The next run (daily, or POST /api/v1/mover/run) moves the rest.'
            : `The service stopped while the mover ran; the batch it was moving was settled (${r.moved} file(s) kept on the data disk, ${r.keptOnCache} back on the cache, none on both). The next run (daily, or POST /api/v1/mover/run) moves the rest.`,
        ...(r ? { details: { settled: r } } : {}),
      };
    },
  };
}

function registerSchedule(ctx: AppContext): void {
  ctx.scheduler.register({
    name: 'mover',
    // before the parity sync when both are due in one tick: the sync then protects what moved
    order: -10,
    nextDue: (lastRunAt) => {
      const settings = readMoverSettings(ctx.db);
      const array = readArraySettings(ctx.db);
      if (!settings.enabled || !array || !hasCache(ctx)) return null;
      return nextDailySlot(
        settings.time,
        readSettings(ctx.db).timezone,
        lastRunAt ?? new Date(array.createdAt),
      );
    },
    run: async () =>
      (
        await ctx.jobs.start(
          moverJob,
          { verify: readMoverSettings(ctx.db).verify },
          { target: TARGET, actor: null, trigger: 'schedule' },
        )
      ).view.id,
  });
}

function lastRun(view: JobView<RunParams, MoverResult> | null) {
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
    ctx.jobs.register(moverJob, moverImplementation(ctx));
    registerSchedule(ctx);
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
        return accepted((await ctx.jobs.start(moverJob, { verify }, { target: TARGET, actor })).view);
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
