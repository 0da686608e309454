/** Apps: catalog, template preview and install, stacks (02; catalog sources 08 §13). */
import { STACK_JOB_KINDS, STACK_JOBS, startApps } from '@appliance/template-installer';
import * as v from 'valibot';
import { created, defineRoute, ok } from '../../http/route.ts';
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
import { createSqliteStackStore, ensureBuiltinSource } from './store.ts';

/** The installer, the catalog reader and the stack jobs' wiring (template-installer's heavy half) load on first use. */
const deps = () => import('./deps.ts');

const errors = {
  400: { description: 'Bad input' },
  404: { description: 'Unknown template' },
  409: { description: 'Conflict' },
};

export const feature: Feature = {
  // a catalog refresh whose signature, serial or archive check fails (the package's sources)
  raises: ['catalog_check_failed'],
  name: 'apps',
  start: async (ctx) => {
    for (const kind of STACK_JOB_KINDS)
      ctx.jobs.register(STACK_JOBS[kind], {
        run: async (handle, params) => (await deps()).stackJob(ctx, kind).run(handle, params),
      });
    await startApps({
      paths: ctx.paths,
      stacks: createSqliteStackStore(ctx),
      seedBuiltinSource: () => ensureBuiltinSource(ctx),
      log: ctx.logger,
    });
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/catalog',
      role: 'viewer',
      summary: 'List catalog sources and templates',
      tags: ['apps'],
      responses: { 200: { description: 'Sources and templates', schema: CatalogSchema } },
      handler: async ({ ctx }) => {
        const d = await deps();
        return ok(await d.catalogView(d.catalogFor(ctx), createSqliteStackStore(ctx)));
      },
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
      handler: async ({ ctx, actor, params, body }) => {
        const d = await deps();
        return ok(await d.previewTemplate(d.appsPorts(ctx, actor), params.id, body));
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
        const d = await deps();
        return created(await d.installTemplate(d.appsPorts(ctx, actor), params.id, body));
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
        const d = await deps();
        return created(await d.createHandMadeStack(d.appsPorts(ctx, actor), body));
      },
    }),
    ...stackRoutes,
    ...sourceRoutes,
  ],
};
