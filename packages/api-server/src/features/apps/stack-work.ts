/** The heavy half of the stack routes: the operations of @appliance/template-installer's stacks. */
import {
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
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { stacks } from '../../db/schema.ts';
import type { JobHandle } from '../../services/jobs.ts';
import { stacksDeps } from './deps.ts';
import type { StackJobKind, StackJobParams } from './stack-jobs.ts';

const PHASE: Record<StackJobKind, string> = {
  start: 'starting',
  stop: 'stopping',
  restart: 'restarting',
  remove: 'removing',
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
