/** Catalog sources (08 §13): add, refresh (https), delete; the operations are the package's. */
import type { AppContext } from '../../context.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import type { Actor } from '../../services/audit.ts';
import { AddSourceBody, SourceIdParams, SourceSchema } from './schemas.ts';

/** The operations and their ports, loaded on the first request (the refresh brings tar along). */
const load = async (ctx: AppContext, actor: Actor | null) => {
  const ops = await import('./deps.ts');
  return { ops, deps: ops.sourcesDeps(ctx, actor) };
};

export const sourceRoutes = [
  defineRoute({
    method: 'POST',
    path: '/catalog/sources',
    role: 'admin',
    summary: 'Add a catalog source',
    tags: ['apps'],
    body: AddSourceBody,
    responses: {
      201: { description: 'The source', schema: SourceSchema },
      400: { description: 'Bad input' },
      409: { description: 'Conflict' },
    },
    handler: async ({ ctx, actor, body }) => {
      const { ops, deps } = await load(ctx, actor);
      return created(await ops.addSource(deps, body));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/catalog/sources/:id/refresh',
    role: 'admin',
    summary: 'Refresh an https catalog source',
    tags: ['apps'],
    params: SourceIdParams,
    responses: {
      200: { description: 'The source', schema: SourceSchema },
      404: { description: 'Unknown source' },
      409: { description: 'Conflict' },
      502: { description: 'Refresh failed' },
    },
    handler: async ({ ctx, actor, params }) => {
      const { ops, deps } = await load(ctx, actor);
      return ok(await ops.refreshSource(deps, params.id));
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/catalog/sources/:id',
    role: 'admin',
    summary: 'Remove a catalog source (installed stacks stay)',
    tags: ['apps'],
    params: SourceIdParams,
    responses: {
      204: { description: 'Removed' },
      404: { description: 'Unknown source' },
      409: { description: 'The built-in source' },
    },
    handler: async ({ ctx, actor, params }) => {
      const { ops, deps } = await load(ctx, actor);
      await ops.removeSource(deps, params.id);
      return noContent();
    },
  }),
];
