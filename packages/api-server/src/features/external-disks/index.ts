import { created, defineRoute, ok } from '../../http/route.ts';
import type { Feature } from '../feature.ts';
import { externalDiskDeps, mountDeps, operations } from './deps.ts';
import {
  EjectSchema,
  ExternalDiskList,
  ExternalDiskSchema,
  FormatBody,
  LabelParams,
  MountSchema,
  NoBody,
  RegisterBody,
} from './schemas.ts';

/**
 * External disks (07): list, register, format, mount, eject. Handlers parse, call the package, map
 * the result. A format, mount or eject also holds the disk's backup group while it holds the disk
 * (a backup, drill or restore never runs beside it: 409 job_running), the package's `*Guarded`.
 */
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
      // a listing reuses the probes of unchanged disks (the package's listExternal)
      handler: async ({ ctx, actor }) => {
        const ops = await operations();
        return ok({ disks: await ops.listExternal(externalDiskDeps(ctx, actor, ops)) });
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
      handler: async ({ ctx, actor, body }) => {
        const ops = await operations();
        return created(await ops.registerExternal(externalDiskDeps(ctx, actor, ops), body));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/external/:label/format',
      role: 'admin',
      summary: 'Erase an external disk and create one filesystem on the whole disk (typed confirmation)',
      tags: ['disks'],
      params: LabelParams,
      body: FormatBody,
      // 07 §6.1: an empty body counts as `{}` (then 409 confirmation_required names the phrase).
      emptyBody: 'object',
      responses: { 200: { description: 'The formatted external disk', schema: ExternalDiskSchema } },
      // Progress events (08 §12) from the first write on: a refused format publishes none.
      handler: async ({ ctx, actor, params, body }) => {
        const ops = await operations();
        return ok(
          await ops.formatExternalGuarded(externalDiskDeps(ctx, actor, ops), {
            label: params.label,
            ...body,
          }),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/external/:label/mount',
      role: 'admin',
      summary: 'Mount an external disk at /mnt/disks/<label> (by filesystem UUID, nosuid,nodev)',
      tags: ['disks'],
      params: LabelParams,
      body: NoBody,
      emptyBody: 'object',
      responses: {
        200: { description: 'The disk, mounted (mounted: false when it already was)', schema: MountSchema },
      },
      handler: async ({ ctx, actor, params }) =>
        ok(await (await operations()).mountExternalGuarded(mountDeps(ctx, actor), params.label)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/external/:label/eject',
      role: 'admin',
      summary: 'Eject an external disk: sync, unmount, power a USB disk down where the kernel allows',
      tags: ['disks'],
      params: LabelParams,
      body: NoBody,
      emptyBody: 'object',
      responses: { 200: { description: 'What was done, and why not more', schema: EjectSchema } },
      handler: async ({ ctx, actor, params }) =>
        ok(await (await operations()).ejectExternalGuarded(mountDeps(ctx, actor), params.label)),
    }),
  ],
};
