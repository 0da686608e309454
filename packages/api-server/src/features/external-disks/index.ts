import { created, defineRoute, ok } from '../../http/route.ts';
import type { AppContext } from '../../context.ts';
import type { Feature } from '../feature.ts';
import { externalDiskDeps } from './deps.ts';
import { ExternalDiskList, ExternalDiskSchema, FormatBody, LabelParams, RegisterBody } from './schemas.ts';

/** The operations (probes, mkfs, wipefs runners) load on the first request that needs them. */
const operations = () => import('@appliance/external-disk');

/** A progress reporter that publishes nothing until the first update (a refusal publishes none). */
function lazyProgress(ctx: AppContext, operation: string, target: string) {
  let reporter: ReturnType<AppContext['events']['progress']> | null = null;
  let last: Record<string, unknown> = {};
  return {
    update(progress: Record<string, unknown>) {
      reporter ??= ctx.events.progress(ctx.random.uuid(), operation, target);
      last = progress;
      reporter.update(progress);
    },
    finish(ok: boolean) {
      reporter?.finish(ok ? { ...last, stepIndex: last['steps'], ok } : { ...last, ok });
    },
  };
}

/** External disks (07): list, register, format. Handlers parse, call the package, map the result. */
export const feature: Feature = {
  name: 'external-disks',
  routes: [
    defineRoute({
      method: 'GET',
      path: '/disks/external',
      role: 'viewer',
      summary: 'List registered external disks and unregistered candidates',
      tags: ['disks'],
      responses: {
        200: { description: 'Registered disks by label, then candidates', schema: ExternalDiskList },
      },
      handler: async ({ ctx, actor }) => {
        // A listing: probes of unchanged disks are reused (docs/decisions/performance.md); the
        // register and format routes below read a fully fresh inventory.
        const inventory = { read: () => ctx.inventory.read({ reuseProbes: true }) };
        return ok({
          disks: await (await operations()).listExternal({ ...externalDiskDeps(ctx, actor), inventory }),
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/external',
      role: 'admin',
      summary: 'Register a whole disk as an external disk under a label (the disk is not touched)',
      tags: ['disks'],
      body: RegisterBody,
      responses: { 201: { description: 'The registered external disk', schema: ExternalDiskSchema } },
      handler: async ({ ctx, actor, body }) =>
        created(await (await operations()).registerExternal(externalDiskDeps(ctx, actor), body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/external/:label/format',
      role: 'admin',
      summary: 'Erase an external disk and create one filesystem on the whole disk (typed confirmation)',
      tags: ['disks'],
      params: LabelParams,
      body: FormatBody,
      responses: { 200: { description: 'The formatted external disk', schema: ExternalDiskSchema } },
      handler: async ({ ctx, actor, params, body }) => {
        // Progress events (08 §12) from the first write on: a refused format publishes none.
        const progress = lazyProgress(ctx, 'disks.external.format', params.label);
        const deps = {
          ...externalDiskDeps(ctx, actor),
          onStep: (step: string, index: number, count: number) =>
            progress.update({ step, stepIndex: index + 1, steps: count }),
        };
        try {
          const { formatExternal } = await operations();
          const { disk } = await formatExternal(deps, { label: params.label, ...body });
          progress.finish(true);
          return ok(disk);
        } catch (err) {
          progress.finish(false);
          throw err;
        }
      },
    }),
  ],
};
