/**
 * The stack routes (issue 35): state, start/stop/restart/remove as jobs, logs (JSON or followed
 * over server-sent events). Viewers read state and logs; only administrators act.
 */
import { AppError } from '@appliance/common';
import { checkRemoveConfirmation } from '@appliance/template-installer';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import type { Actor } from '../../services/audit.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { assertNoBackupOf, planCovering, STACK_JOBS, type StackJobKind } from './stack-jobs.ts';
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

const work = () => import('./stack-work.ts');

const errors = {
  400: { description: 'Bad input' },
  404: { description: 'Unknown stack' },
  409: { description: 'A job of the stack or a backup of it is running' },
};

async function startJob(
  ctx: AppContext,
  actor: Actor | null,
  kind: StackJobKind,
  name: string,
  extra: Record<string, unknown> = {},
) {
  const w = await work();
  await w.requireStackRow(ctx, name);
  assertNoBackupOf(ctx, name);
  ctx.jobs.assertFree([`stack:${name}`]);
  await w.precheck(ctx, name, kind);
  const started = await ctx.jobs.start(
    STACK_JOBS[kind],
    { stack: name, ...extra },
    { target: `stacks/${name}`, actor, auditOperation: STACK_JOBS[kind].type },
  );
  return accepted(started.view);
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
    handler: async ({ ctx }) => ok(await (await work()).listStacks(ctx)),
  }),
  defineRoute({
    method: 'GET',
    path: '/stacks/:name',
    role: 'viewer',
    summary: 'One stack with its containers, images, ports and updates',
    tags: ['apps'],
    params: StackParams,
    responses: { 200: { description: 'The stack', schema: StackStateSchema }, ...errors },
    handler: async ({ ctx, params }) => ok(await (await work()).showStack(ctx, params.name)),
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
        if (!plan)
          throw new AppError(
            409,
            'no_backup_plan',
            `No backup plan holds the stack ${params.name}, so no snapshot can be taken; add it to a plan or update without a snapshot.`,
            { stack: params.name },
          );
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
      const w = await work();
      await w.requireStackRow(ctx, params.name);
      assertNoBackupOf(ctx, params.name);
      ctx.jobs.assertFree([`stack:${params.name}`]);
      const result = await w.editValues(ctx, actor, params.name, body);
      const restart =
        result.changed.length > 0 && (await w.isRunning(ctx, params.name))
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
      const w = await work();
      const request = {
        ...(query.service !== undefined ? { service: query.service } : {}),
        ...(query.tail !== undefined ? { tail: query.tail } : {}),
        ...(query.since !== undefined ? { since: query.since } : {}),
      };
      if (query.follow !== '1' && query.follow !== 'true')
        return ok({ lines: await w.logsOf(ctx, params.name, request) });
      await w.requireStackRow(ctx, params.name);
      const controller = new AbortController();
      const lines = w.followLogs(ctx, params.name, request, controller.signal)[Symbol.asyncIterator]();
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
