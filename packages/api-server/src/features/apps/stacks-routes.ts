/**
 * The stack routes (issue 35): state, start/stop/restart/remove as jobs, logs (JSON or followed
 * over server-sent events). Viewers read state and logs; only administrators act. The operations
 * are @appliance/template-installer's, loaded on the first request with the ports (deps.ts).
 */
import type { StackJobKind } from '@appliance/template-installer';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { NoBody } from '../../http/schemas.ts';
import { JobSchema } from '../jobs/schemas.ts';
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
const load = () => import('./deps.ts');

const errors = {
  400: { description: 'Bad input' },
  404: { description: 'Unknown stack' },
  409: { description: 'A job of the stack or a backup of it is running' },
};
/** The answers of a route that starts a job of the stack. */
const jobAnswers = { 202: { description: 'The job', schema: JobSchema }, ...errors };

const action = (kind: Exclude<StackJobKind, 'remove'>, summary: string) =>
  defineRoute({
    method: 'POST',
    path: `/stacks/:name/${kind}`,
    role: 'admin',
    summary,
    tags: ['apps'],
    params: StackParams,
    emptyBody: 'object',
    body: NoBody,
    responses: jobAnswers,
    handler: async ({ ctx, actor, params }) => {
      const d = await load();
      return accepted(await d.startStackJob(d.appsPorts(ctx, actor), kind, params.name));
    },
  });

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
      const d = await load();
      return ok(await d.listStacks(d.stacksDeps(ctx)));
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
      const d = await load();
      return ok(await d.showStack(d.stacksDeps(ctx), params.name));
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
    responses: jobAnswers,
    handler: async ({ ctx, actor, params, body }) => {
      const d = await load();
      return accepted(await d.requestStackRemoval(d.appsPorts(ctx, actor), params.name, body));
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
    responses: jobAnswers,
    handler: async ({ ctx, actor, params, body }) => {
      const d = await load();
      return accepted(await d.requestStackUpdate(d.appsPorts(ctx, actor), params.name, body));
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
      const d = await load();
      return ok(await d.editStackValues(d.appsPorts(ctx, actor), params.name, body));
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
      const d = await load();
      const stacks = d.stacksDeps(ctx);
      if (query.follow !== '1' && query.follow !== 'true')
        return ok({ lines: await d.stackLogs(stacks, params.name, query) });
      const follow = await d.openLogFollow(stacks, params.name, query);
      return streamSSE(c, (stream) =>
        d.pipeLogFollow(follow, {
          comment: (text) => stream.write(`: ${text}\n\n`),
          event: (event, data) => stream.writeSSE({ event, data }),
          onAbort: (listener) => stream.onAbort(listener),
        }),
      );
    },
  }),
];
