import { formatExternal, listExternal, registerExternal } from '@appliance/external-disk';
import { created, defineRoute, ok } from '../../http/route.ts';
import type { Feature } from '../feature.ts';
import { externalDiskDeps } from './deps.ts';
import { ExternalDiskList, ExternalDiskSchema, FormatBody, LabelParams, RegisterBody } from './schemas.ts';

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
      handler: async ({ ctx, actor }) => ok({ disks: await listExternal(externalDiskDeps(ctx, actor)) }),
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
        created(await registerExternal(externalDiskDeps(ctx, actor), body)),
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
        const { disk } = await formatExternal(externalDiskDeps(ctx, actor), { label: params.label, ...body });
        return ok(disk);
      },
    }),
  ],
};
