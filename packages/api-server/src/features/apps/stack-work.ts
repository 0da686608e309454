/** The heavy half of the stack routes: the operations of @appliance/template-installer's stacks. */
import {
  type OperationHooks,
  updateStack,
  checkPortsFor,
  followStackLogs,
  listStackStates,
  type LogsRequest,
  readStackState,
  removeStack,
  requireStack,
  runLifecycle,
  stackLogs,
  type StackState,
} from '@appliance/template-installer';
import { AppError } from '@appliance/common';
import { IMAGE_KEY_PREFIX } from '@appliance/watchers';
import { eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { backupPlans, stacks, watcherConditions } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import type { JobHandle } from '@appliance/jobs';
import { backupRunJob } from '@appliance/backups';
import { stacksDeps } from './deps.ts';
import type { StackJobKind, StackJobParams } from './stack-jobs.ts';

const PHASE: Record<StackJobKind, string> = {
  start: 'starting',
  stop: 'stopping',
  restart: 'restarting',
  remove: 'removing',
  update: 'updating',
};

const withEdited = (ctx: AppContext, s: StackState) => {
  const r = ctx.db
    .select({ manuallyEdited: stacks.manuallyEdited })
    .from(stacks)
    .where(eq(stacks.name, s.name))
    .get();
  return { ...s, manuallyEdited: (r?.manuallyEdited ?? 0) !== 0 };
};

export async function runStackJob(
  ctx: AppContext,
  job: JobHandle,
  kind: StackJobKind,
  params: StackJobParams,
): Promise<unknown> {
  const deps = stacksDeps(ctx);
  job.phase(PHASE[kind]);
  job.progress({ percent: 0 });
  const hooks = {
    onService: (p: { service: string; action: string; percent: number }) =>
      job.progress({ percent: p.percent, service: p.service, action: p.action }),
    onOutput: (line: string) => job.output(line),
    onSpawn: (pid: number) => job.pid(pid),
    signal: job.signal,
  };
  try {
    if (kind === 'remove') {
      const result = await removeStack(
        deps,
        params.stack,
        { confirm: params.confirm ?? '', removeData: params.removeData === true },
        hooks,
      );
      await ctx.generated.forget(`${deps.stackDir(params.stack)}/docker-compose.yml`);
      return result;
    }
    if (kind === 'update') return await runUpdate(ctx, job, params, hooks);
    const state = await runLifecycle(deps, params.stack, kind, hooks);
    job.progress({ percent: 100 });
    return withEdited(ctx, state);
  } finally {
    job.pid(null);
  }
}

export async function listStacks(ctx: AppContext) {
  const deps = stacksDeps(ctx);
  try {
    return { stacks: (await listStackStates(deps)).map((s) => withEdited(ctx, s)), docker: 'ok' as const };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'docker_unavailable') throw e;
    const rows = (await deps.stacks.list()).filter((r) => !r.pending);
    return {
      docker: 'unavailable' as const,
      stacks: rows.map((r) => ({
        name: r.name,
        template: r.template,
        installedAt: r.installedAt,
        manuallyEdited: r.manuallyEdited,
        directory: `/var/lib/appliance/stacks/${r.name}`,
        status: 'unknown' as const,
        services: [],
        updateAvailable: false,
      })),
    };
  }
}

export async function showStack(ctx: AppContext, name: string) {
  return withEdited(ctx, await readStackState(stacksDeps(ctx), name));
}

/** Before a start or restart is accepted: 409 port_in_use when another holder has a port. */
export async function precheck(ctx: AppContext, name: string, kind: StackJobKind): Promise<void> {
  if (kind === 'start' || kind === 'restart') await checkPortsFor(stacksDeps(ctx), name, kind);
}

export async function requireStackRow(ctx: AppContext, name: string): Promise<void> {
  await requireStack(stacksDeps(ctx), name);
}

export const logsOf = (ctx: AppContext, name: string, request: LogsRequest) =>
  stackLogs(stacksDeps(ctx), name, request);

export const followLogs = (ctx: AppContext, name: string, request: LogsRequest, signal: AbortSignal) =>
  followStackLogs(stacksDeps(ctx), name, request, signal);

/**
 * An update: the covering backup plan first when asked (its run must succeed), then the package's
 * update. Success clears the stack's `container_update_available` conditions; a failure raises
 * them again with the reason.
 */
async function runUpdate(ctx: AppContext, job: JobHandle, params: StackJobParams, hooks: OperationHooks) {
  const name = params.stack;
  if (params.snapshotPlan) {
    job.phase('snapshot');
    const plan = params.snapshotPlan;
    const row = ctx.db.select().from(backupPlans).where(eq(backupPlans.name, plan)).get();
    if (!row)
      throw new AppError(
        409,
        'no_backup_plan',
        `The backup plan ${plan} is gone; update without a snapshot or add a plan.`,
      );
    job.output(`taking a snapshot first: running the backup plan ${plan}`);
    const { view: started, completed } = await ctx.jobs.start(
      backupRunJob,
      { plan, destination: row.destination },
      { target: plan, actor: null, auditOperation: 'backups.run' },
    );
    const ended = await completed;
    if (ended.state !== 'succeeded')
      throw new AppError(
        502,
        'snapshot_failed',
        `The snapshot before the update of ${name} failed (backup job ${started.id}: ${ended.error?.message ?? ended.state}); nothing was updated.`,
        { stack: name, job: started.id },
      );
    job.output(`snapshot taken (backup job ${started.id})`);
    job.phase('updating');
  }
  const keys = ctx.db
    .select({ key: watcherConditions.key })
    .from(watcherConditions)
    .where(isNull(watcherConditions.clearedAt))
    .all()
    .map((r) => r.key)
    .filter((k) => k.startsWith(`${IMAGE_KEY_PREFIX}${name}/`));
  try {
    const result = await updateStack(
      stacksDeps(ctx),
      name,
      params.healthTimeoutSeconds !== undefined ? { healthTimeoutSeconds: params.healthTimeoutSeconds } : {},
      hooks,
    );
    for (const k of keys) await ctx.conditions.clear(k);
    job.progress({ percent: 100 });
    return result;
  } catch (err) {
    const reason = err instanceof AppError ? err.message : String(err);
    const services =
      err instanceof AppError && typeof err.details?.['service'] === 'string' ? [err.details['service']] : [];
    const raise = keys.length > 0 ? keys : services.map((s) => `${IMAGE_KEY_PREFIX}${name}/${s}`);
    for (const k of raise) {
      const service = k.slice(`${IMAGE_KEY_PREFIX}${name}/`.length);
      await ctx.conditions.clear(k);
      await ctx.conditions.hold(
        k,
        {
          eventType: 'container_update_available',
          subject: `stack ${name}, service ${service}`,
          title: `Stack ${name}: the update of ${service} failed`,
          message: `A newer image is available for the stack ${name} (service ${service}), but applying it failed: ${reason}`,
        },
        'apps',
      );
    }
    throw err;
  }
}

/** PUT /stacks/:name/values through the installer (same rules as install); audited. */
export async function editValues(
  ctx: AppContext,
  actor: Actor | null,
  name: string,
  body: { values?: Record<string, string>; regenerate?: string[] },
) {
  const { installerFor } = await import('./service.ts');
  try {
    const result = await installerFor(ctx).editValues(name, body);
    await ctx.writes.run((db) =>
      ctx.audit.record(db, actor, {
        operation: 'stack.values',
        target: `stacks/${name}`,
        details: { changed: result.changed },
      }),
    );
    return result;
  } catch (e) {
    if (e instanceof AppError && e.status < 500) throw e;
    await ctx.writes.run((db) =>
      ctx.audit.record(db, actor, {
        operation: 'stack.values',
        target: `stacks/${name}`,
        outcome: 'failed',
        details: { code: e instanceof AppError ? e.code : 'internal' },
      }),
    );
    throw e;
  }
}

export async function isRunning(ctx: AppContext, name: string): Promise<boolean> {
  return (await stacksDeps(ctx).engine.containers(name)).some((c) => c.state === 'running');
}
