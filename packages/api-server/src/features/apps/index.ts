/** Apps: catalog, template preview and install, stacks (02; catalog sources 08 §13). */
import path from 'node:path';
import {
  type AuditRecord,
  installProgress,
  STACK_JOB_KINDS,
  STACK_JOBS,
  syncBuiltinCatalog,
  undoPendingStacks,
} from '@appliance/template-installer';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { created, defineRoute, ok } from '../../http/route.ts';
import type { Actor } from '../../services/audit.ts';
import type { Feature } from '../feature.ts';
import {
  CatalogSchema,
  CreateStackBody,
  InstallBody,
  PlanSchema,
  PreviewBody,
  StackSchema,
  TemplateParams,
} from './schemas.ts';
import { sourceRoutes } from './sources.ts';
import { stackRoutes } from './stacks-routes.ts';
import { createSqliteStackStore, ensureBuiltinSource, stacksByTemplate } from './store.ts';

/** The installer, the catalog reader and the stack jobs' wiring (template-installer's heavy half) load on first use. */
const deps = () => import('./deps.ts');

const errors = {
  400: { description: 'Bad input' },
  404: { description: 'Unknown template' },
  409: { description: 'Conflict' },
};

/** The audit row of an install or create: outcome ok, else failed with the code in details. */
const auditWith = (ctx: AppContext, actor: Actor | null) => async (r: AuditRecord) => {
  await ctx.writes.run((db) =>
    ctx.audit.record(db, actor, {
      operation: r.operation,
      target: r.target,
      outcome: r.outcome === 'ok' ? 'ok' : 'failed',
      ...(r.outcome === 'ok' ? {} : { details: { code: r.outcome } }),
    }),
  );
};

/** The compose file the service just wrote for a stack, recorded for the drift watcher (issue 22). */
function recordStackFiles(ctx: AppContext, name: string): void {
  ctx.generated.recordQuietly(path.join(ctx.paths.stacksDir, name, 'docker-compose.yml'));
}

export const feature: Feature = {
  // a catalog refresh whose signature, serial or archive check fails (the package's sources)
  raises: ['catalog_check_failed'],
  name: 'apps',
  start: async (ctx) => {
    for (const kind of STACK_JOB_KINDS)
      ctx.jobs.register(STACK_JOBS[kind], {
        run: async (handle, params) => (await deps()).stackJob(ctx, kind).run(handle, params),
      });
    await ensureBuiltinSource(ctx);
    await syncBuiltinCatalog(ctx.paths.catalogDir);
    const undone = await undoPendingStacks(ctx.paths, createSqliteStackStore(ctx));
    if (undone.length) ctx.logger.info('apps: undid stacks left pending by a crash', { stacks: undone });
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/catalog',
      role: 'viewer',
      summary: 'List catalog sources and templates',
      tags: ['apps'],
      responses: { 200: { description: 'Sources and templates', schema: CatalogSchema } },
      handler: async ({ ctx }) => ok(await (await deps()).catalogFor(ctx).view(stacksByTemplate(ctx))),
    }),
    defineRoute({
      method: 'POST',
      path: '/templates/:id/preview',
      role: 'admin',
      summary: 'Preview an install (never writes)',
      tags: ['apps'],
      params: TemplateParams,
      body: PreviewBody,
      responses: { 200: { description: 'The plan', schema: PlanSchema }, ...errors },
      handler: async ({ ctx, params, body }) => {
        const { planDigest: _ignored, ...request } = body; // 02 §2: install only
        return ok(await (await deps()).installerFor(ctx).preview(params.id, request));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/templates/:id/install',
      role: 'admin',
      summary: 'Install a catalog template as a stack (nothing is started)',
      tags: ['apps'],
      params: TemplateParams,
      body: InstallBody,
      responses: {
        201: {
          description: 'The stack and the plan written',
          schema: v.object({ stack: StackSchema, plan: PlanSchema }),
        },
        ...errors,
      },
      handler: async ({ ctx, actor, params, body }) => {
        // progress events (08 §12) with target = the stack name, from the first write on
        const progress = installProgress(
          {
            publish: (data) => ctx.events.publish({ type: 'progress', data }),
            uuid: () => ctx.random.uuid(),
          },
          body.name ?? params.id,
        );
        const options = { audit: auditWith(ctx, actor), onStep: progress.onStep };
        try {
          const result = await (await deps()).installerFor(ctx).install(params.id, body, options);
          recordStackFiles(ctx, result.stack.name);
          // The spaced events drain after the answer: progress never delays the install itself.
          void progress.finish(true);
          return created(result);
        } catch (err) {
          void progress.finish(false);
          throw err;
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/stacks',
      role: 'admin',
      summary: 'Create a hand-made stack (nothing is started)',
      tags: ['apps'],
      body: CreateStackBody,
      responses: { 201: { description: 'The stack', schema: StackSchema }, ...errors },
      handler: async ({ ctx, actor, body }) => {
        const input =
          body.env === undefined
            ? { name: body.name, compose: body.compose }
            : { name: body.name, compose: body.compose, env: body.env };
        const stack = await (await deps())
          .installerFor(ctx)
          .createStack(input, { audit: auditWith(ctx, actor) });
        recordStackFiles(ctx, stack.name);
        return created(stack);
      },
    }),
    ...stackRoutes,
    ...sourceRoutes,
  ],
};
