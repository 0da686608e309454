/**
 * The stack routes (issue 35): state, start/stop/restart/remove as jobs, logs (JSON or followed
 * over server-sent events). Viewers read state and logs; only administrators act. The operations
 * are @appliance/template-installer's, loaded on the first request with the ports (deps.ts).
 */
import { AppError, Refusal } from '@appliance/common';
import {
  checkRemoveConfirmation,
  noCoveringPlan,
  STACK_JOBS,
  type StackJobKind,
} from '@appliance/template-installer';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { refusalStatus } from '../../http/refusal-status.ts';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import type { Actor } from '../../services/audit.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { planCovering } from './store.ts';
import {
  LogLineSchema,
  LogsQuery,
  RemoveBody,
  StackListSchema,
  StackParams,
  StackStateSchema,
  UpdateBody,
  ValuesBody,
  valuesResult,
} from './stacks-schemas.ts';

/** The wiring and the package's operations (deps.ts re-exports them), loaded on the first stack request. */
const load = async () => {
  const deps = await import('./deps.ts');
  return { deps, ops: deps };
};

const errors = {
  400: { description: 'Bad input' },
  404: { description: 'Unknown stack' },
  409: { description: 'A job of the stack or a backup of it is running' },
};

/** The checks every stack job and values edit pass first: the stack exists, no backup or job of it runs. */
async function assertStackFree(ctx: AppContext, name: string) {
  const { deps, ops } = await load();
  const ports = deps.stackJobPorts(ctx);
  await ops.requireStack(ports.stacks, name);
  ops.assertNoBackupOf(ports, name);
  ctx.jobs.assertFree([`stack:${name}`]);
  return { ports, ops, deps };
}

async function startJob(
  ctx: AppContext,
  actor: Actor | null,
  kind: StackJobKind,
  name: string,
  extra: Record<string, unknown> = {},
) {
  const { ports, ops } = await assertStackFree(ctx, name);
  // a start or restart is refused (port_in_use) when another holder has one of its ports
  if (kind === 'start' || kind === 'restart') await ops.checkPortsFor(ports.stacks, name, kind);
  const started = await ctx.jobs.start(
    STACK_JOBS[kind],
    { stack: name, ...extra },
    { target: `stacks/${name}`, actor, auditOperation: STACK_JOBS[kind].type },
  );
  return accepted(started.view);
}

/** PUT /stacks/:name/values through the installer (same rules as install); audited, refusals too. */
async function editValues(
  ctx: AppContext,
  actor: Actor | null,
  name: string,
  body: { values?: Record<string, string>; regenerate?: string[] },
) {
  const audit = (outcome: 'ok' | 'failed', details: Record<string, unknown>) =>
    ctx.writes.run((db) =>
      ctx.audit.record(db, actor, { operation: 'stack.values', target: `stacks/${name}`, outcome, details }),
    );
  try {
    const result = await (await load()).deps.installerFor(ctx).editValues(name, body);
    await audit('ok', { changed: result.changed });
    return result;
  } catch (e) {
    const status = e instanceof AppError ? e.status : e instanceof Refusal ? refusalStatus(e.code) : 500;
    if (status < 500) throw e;
    await audit('failed', { code: e instanceof Refusal ? e.code : 'internal' });
    throw e;
  }
}

const action = (kind: Exclude<StackJobKind, 'remove'>, summary: string) =>
  defineRoute({
    method: 'POST',
    path: `/stacks/:name/${kind}`,
    role: 'admin',
    summary,
    tags: ['apps'],
    params: StackParams,
    emptyBody: 'object',
    body: v.strictObject({}),
    responses: { 202: { description: 'The job', schema: JobSchema }, ...errors },
    handler: async ({ ctx, actor, params }) => startJob(ctx, actor, kind, params.name),
  });

const PING_MS = 15_000;
const ValuesResult = valuesResult(JobSchema);

export const stackRoutes = [
  defineRoute({
    method: 'GET',
    path: '/stacks',
    role: 'viewer',
    summary: 'List stacks with their containers, images, ports and updates',
    tags: ['apps'],
    responses: { 200: { description: 'Stacks in byte order of name', schema: StackListSchema } },
    handler: async ({ ctx }) => {
      const { deps, ops } = await load();
      return ok(await ops.listStacks(deps.stacksDeps(ctx)));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/stacks/:name',
    role: 'viewer',
    summary: 'One stack with its containers, images, ports and updates',
    tags: ['apps'],
    params: StackParams,
    responses: { 200: { description: 'The stack', schema: StackStateSchema }, ...errors },
    handler: async ({ ctx, params }) => {
      const { deps, ops } = await load();
      return ok(await ops.showStack(deps.stacksDeps(ctx), params.name));
    },
  }),
  action('start', 'Start a stack (compose up -d); refused when one of its ports is taken'),
  action('stop', 'Stop a stack (compose stop)'),
  action('restart', 'Restart a stack (compose restart)'),
  defineRoute({
    method: 'DELETE',
    path: '/stacks/:name',
    role: 'admin',
    summary: 'Remove a stack (compose down, folder and row); its data only with removeData',
    tags: ['apps'],
    params: StackParams,
    body: RemoveBody,
    responses: { 202: { description: 'The job', schema: JobSchema }, ...errors },
    handler: async ({ ctx, actor, params, body }) => {
      checkRemoveConfirmation(params.name, body.confirm, body.removeData === true);
      return startJob(ctx, actor, 'remove', params.name, {
        confirm: body.confirm,
        removeData: body.removeData === true,
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/stacks/:name/update',
    role: 'admin',
    summary: 'Pull newer images, recreate changed services, roll back when their health fails',
    tags: ['apps'],
    params: StackParams,
    emptyBody: 'object',
    body: UpdateBody,
    responses: { 202: { description: 'The job', schema: JobSchema }, ...errors },
    handler: async ({ ctx, actor, params, body }) => {
      let snapshotPlan: string | undefined;
      if (body.snapshot === true) {
        const plan = planCovering(ctx, params.name);
        if (!plan) throw noCoveringPlan(params.name);
        snapshotPlan = plan.name;
      }
      return startJob(ctx, actor, 'update', params.name, {
        ...(body.healthTimeoutSeconds !== undefined
          ? { healthTimeoutSeconds: body.healthTimeoutSeconds }
          : {}),
        ...(snapshotPlan ? { snapshotPlan } : {}),
      });
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/stacks/:name/values',
    role: 'admin',
    summary:
      'Change an installed stack’s inputs (install rules, compose check); a running stack is restarted',
    tags: ['apps'],
    params: StackParams,
    body: ValuesBody,
    responses: {
      200: {
        description: 'The plan written, the inputs changed, and the restart job (or null)',
        schema: ValuesResult,
      },
      ...errors,
    },
    handler: async ({ ctx, actor, params, body }) => {
      const { ports, ops } = await assertStackFree(ctx, params.name);
      const result = await editValues(ctx, actor, params.name, body);
      const restart =
        result.changed.length > 0 && (await ops.isStackRunning(ports.stacks, params.name))
          ? (
              await ctx.jobs.start(
                STACK_JOBS.start,
                { stack: params.name },
                { target: `stacks/${params.name}`, actor, auditOperation: STACK_JOBS.start.type },
              )
            ).view
          : null;
      return ok({ ...result, restart });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/stacks/:name/logs',
    role: 'viewer',
    summary: 'A stack’s container logs, newest last; follow=1 streams them as server-sent events',
    tags: ['apps'],
    params: StackParams,
    query: LogsQuery,
    responses: {
      200: {
        description: 'The lines (or text/event-stream with follow=1)',
        schema: v.object({ lines: v.array(LogLineSchema) }),
      },
      ...errors,
    },
    handler: async ({ ctx, params, query, c }) => {
      const { deps, ops } = await load();
      const stacks = deps.stacksDeps(ctx);
      const request = {
        ...(query.service !== undefined ? { service: query.service } : {}),
        ...(query.tail !== undefined ? { tail: query.tail } : {}),
        ...(query.since !== undefined ? { since: query.since } : {}),
      };
      if (query.follow !== '1' && query.follow !== 'true')
        return ok({ lines: await ops.stackLogs(stacks, params.name, request) });
      await ops.requireStack(stacks, params.name);
      const controller = new AbortController();
      const lines = ops
        .followStackLogs(stacks, params.name, request, controller.signal)
        [Symbol.asyncIterator]();
      // the first step runs now, so an unknown service is a 404, not an empty stream
      const first = lines.next();
      first.catch(() => undefined);
      await Promise.race([first, new Promise((r) => setTimeout(r, 50))]);
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => controller.abort());
        const ping = setInterval(
          () => void stream.write(': ping\n\n').catch(() => controller.abort()),
          PING_MS,
        );
        try {
          await stream.write(': connected\n\n');
          let next = first;
          for (;;) {
            const r = await next;
            if (r.done) break;
            await stream.writeSSE({ event: 'line', data: JSON.stringify(r.value) });
            next = lines.next();
          }
          await stream.writeSSE({ event: 'end', data: '{}' });
        } catch (e) {
          if (!controller.signal.aborted)
            await stream
              .writeSSE({ event: 'error', data: JSON.stringify({ message: (e as Error).message }) })
              .catch(() => undefined);
        } finally {
          clearInterval(ping);
          controller.abort();
        }
      });
    },
  }),
];
