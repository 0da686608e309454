/**
 * Updates through apt, reboot required, the scheduled reboot (issue 38). The decisions, apt and
 * the reboot are @appliance/updates'; here: the routes, the jobs and schedules wired to the
 * context, the reboot watcher. Events go through the conditions (raised once, cleared when gone).
 */
import { badRequest, isoMillis, missingTool, notConfigured } from '@appliance/common';
import {
  evaluateReboot,
  MAX_REBOOT_AHEAD_DAYS,
  readRebootFacts,
  REBOOT_KEY,
  rebootDueAt,
  rebootNow,
  runApply,
  runCheck,
} from '@appliance/updates';
import type { AppContext } from '../../context.ts';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { defineJob, type JobView } from '@appliance/jobs';
import type { WatcherDefinition } from '@appliance/watchers';
import type { Feature } from '../feature.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { aptAvailable, hostRebootPaths, updatePorts } from './deps.ts';
import { NoBody, RebootBody, RebootSchema, UpdatesSchema } from './schemas.ts';
import { readUpdatesState, writeUpdatesState } from './store.ts';

/** Seconds between two reboot-required cycles. */
export const REBOOT_INTERVAL_S = 300;
/** The daily check. */
export const CHECK_INTERVAL_MS = 24 * 3600 * 1000;
/** No check or apply runs twice; an apply never runs during an array job (sync, scrub, disk job). */
const CHECK_GROUPS = ['updates'] as const;
const APPLY_GROUPS = ['array', 'updates'] as const;
const REBOOT_GROUPS = ['array'] as const;

/**
 * Whether this box checks for updates: apt installed, and either the real host or a sandbox with
 * an apt configuration of its own (a sandbox never checks this machine's packages).
 */
export function updatesConfigured(ctx: AppContext): boolean {
  return aptAvailable(ctx) && (ctx.config.root === '' || (ctx.config.updates?.aptConfig ?? null) !== null);
}

function rebootWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'reboot',
    events: ['reboot_required'],
    owns: [REBOOT_KEY],
    intervalSeconds: () => REBOOT_INTERVAL_S,
    observe: async () => evaluateReboot(await readRebootFacts(hostRebootPaths(ctx))),
  };
}

/**
 * apt installed, and this box's own packages to update: a sandbox (root prefix) without an apt
 * configuration of its own is refused, so it never checks or upgrades the machine it runs on.
 */
async function requireApt(ctx: AppContext): Promise<void> {
  if (!(await ctx.runner.resolve('apt-get'))) throw missingTool('apt-get');
  if (!updatesConfigured(ctx))
    throw notConfigured(
      'This service runs in a sandbox (a root prefix) without an apt configuration of its own ([updates] aptConfig): it never updates the machine it runs on.',
    );
}

type NoParams = Record<string, never>;

/** `updates.check`: the package lists read, what is pending counted. */
export const updatesCheckJob = defineJob<NoParams, { checkedAt: string; pending: number; security: number }>({
  type: 'updates.check',
  title: 'update check',
  groups: CHECK_GROUPS,
});

/** `updates.apply`: the pending upgrades installed. */
export const updatesApplyJob = defineJob<NoParams, Awaited<ReturnType<typeof runApply>>>({
  type: 'updates.apply',
  title: 'update',
  groups: APPLY_GROUPS,
});

/** `system.reboot`: the machine restarted. */
export const systemRebootJob = defineJob<NoParams, { rebootedAt: string }>({
  type: 'system.reboot',
  title: 'reboot',
  groups: REBOOT_GROUPS,
});

function register(ctx: AppContext, version: string): void {
  ctx.jobs.register(updatesCheckJob, {
    run: async () => {
      const r = await runCheck(updatePorts(ctx, version));
      return { checkedAt: r.checkedAt, pending: r.packages.length, security: r.security.length };
    },
  });
  ctx.jobs.register(updatesApplyJob, {
    run: (job) =>
      runApply(updatePorts(ctx, version), {
        phase: (name) => job.phase(name),
        progress: (p) => job.progress({ percent: p.percent, package: p.package, message: p.message }),
        output: (line) => job.output(line),
        signal: job.signal,
        onSpawn: (pid) => job.pid(pid),
      }),
    // an upgrade may have flagged a reboot (a new kernel, libc)
    after: async () => {
      await ctx.watchers.runOnce('reboot');
    },
  });
  ctx.jobs.register(systemRebootJob, {
    run: async () => {
      await rebootNow(ctx.runner, { sandbox: ctx.config.root !== '' });
      return { rebootedAt: isoMillis(ctx.clock.now()) };
    },
  });
  ctx.scheduler.register({
    name: 'updates.check',
    nextDue: (last) =>
      updatesConfigured(ctx) ? (last ? new Date(last.getTime() + CHECK_INTERVAL_MS) : ctx.clock.now()) : null,
    run: async () =>
      (await ctx.jobs.start(updatesCheckJob, {}, { target: 'apt', actor: null, trigger: 'schedule' })).view
        .id,
  });
  ctx.scheduler.register({
    name: 'system.reboot',
    nextDue: () => {
      const at = readUpdatesState(ctx.db).rebootAt;
      return at ? new Date(at) : null;
    },
    // refused with job_running while an array job runs: the scheduler tries again at its next tick
    run: async () => {
      const { view: job } = await ctx.jobs.start(
        systemRebootJob,
        {},
        { target: 'system', actor: null, trigger: 'schedule' },
      );
      await ctx.writes.run((db) => writeUpdatesState(db, { rebootAt: null, rebootBy: null }));
      return job.id;
    },
  });
}

function rebootView(ctx: AppContext) {
  const state = readUpdatesState(ctx.db);
  const held = ctx.conditions.holding([REBOOT_KEY])[0] ?? null;
  return {
    required: held !== null,
    packages: held?.value ? held.value.split(', ') : [],
    reason: held?.message ?? null,
    scheduledAt: state.rebootAt,
    scheduledBy: state.rebootBy,
  };
}

function updatesView(ctx: AppContext) {
  const state = readUpdatesState(ctx.db);
  const running = ctx.jobs.running().find((j) => j.type === 'updates.apply' || j.type === 'updates.check');
  const lastApply: JobView | null = ctx.jobs.latest(updatesApplyJob, [
    'succeeded',
    'failed',
    'cancelled',
    'interrupted',
  ]);
  return {
    checkedAt: state.checkedAt,
    checkError: state.checkError,
    nextCheckAt: ctx.scheduler.view('updates.check')?.nextDueAt ?? null,
    pending: state.upgradable,
    security: state.upgradable.filter((p) => p.security),
    lastApply,
    running: running ?? null,
  };
}

export function updatesFeature(version: string): Feature {
  return {
    name: 'updates',
    raises: [
      'reboot_required',
      { eventType: 'appliance_update_available', when: updatesConfigured },
      { eventType: 'appliance_update_failed', when: updatesConfigured },
    ],
    start(ctx) {
      register(ctx, version);
      ctx.watchers.register(rebootWatcher(ctx));
    },
    routes: [
      defineRoute({
        method: 'GET',
        path: '/updates',
        role: 'viewer',
        summary: 'The last apt check, the upgradable packages (security ones apart), the last apply',
        tags: ['updates'],
        responses: { 200: { description: 'Updates of the Debian packages', schema: UpdatesSchema } },
        handler: ({ ctx }) => ok(updatesView(ctx)),
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
          202: { description: 'The check job (Location: /api/v1/jobs/<id>)', schema: JobSchema },
          409: { description: 'job_running, import_in_progress', schema: ErrorBody },
          501: { description: 'apt is not installed', schema: ErrorBody },
        },
        handler: async ({ ctx, actor }) => {
          await requireApt(ctx);
          return accepted((await ctx.jobs.start(updatesCheckJob, {}, { target: 'apt', actor })).view);
        },
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
          202: { description: 'The update job (Location: /api/v1/jobs/<id>)', schema: JobSchema },
          409: {
            description: 'job_running (an array job or another update), import_in_progress',
            schema: ErrorBody,
          },
          501: { description: 'apt is not installed', schema: ErrorBody },
        },
        handler: async ({ ctx, actor }) => {
          await requireApt(ctx);
          return accepted((await ctx.jobs.start(updatesApplyJob, {}, { target: 'apt', actor })).view);
        },
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
          const due = rebootDueAt(body.at, ctx.clock.now());
          if ('error' in due) throw badRequest([{ path: 'at', message: due.error }]);
          const at = isoMillis(due.at);
          const by = actor ? (actor.kind === 'local' ? 'local' : actor.username) : 'system';
          await ctx.writes.run((db) => {
            writeUpdatesState(db, { rebootAt: at, rebootBy: by });
            ctx.audit.record(db, actor, {
              operation: 'system.reboot.schedule',
              target: 'system',
              details: { at },
            });
          });
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
          if (readUpdatesState(ctx.db).rebootAt !== null)
            await ctx.writes.run((db) => {
              writeUpdatesState(db, { rebootAt: null, rebootBy: null });
              ctx.audit.record(db, actor, { operation: 'system.reboot.cancel', target: 'system' });
            });
          return ok(rebootView(ctx));
        },
      }),
    ],
  };
}
