import { destinationGroup } from '@appliance/backups';
import type { DiskLocks } from '@appliance/external-disk';
import { created, defineRoute, ok } from '../../http/route.ts';
import type { AppContext } from '../../context.ts';
import type { Feature } from '../feature.ts';
import { externalDiskDeps, mountDeps } from './deps.ts';
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

/**
 * The disk locks of an operation on an external disk, which also hold the disk's backup group
 * while they are held (07 §6.3 check 14, right after the disk lock): a format, a mount or an eject
 * never runs while a backup, drill or restore uses the disk (409 job_running), none of those starts
 * meanwhile, and two of them on one disk still answer 409 disk_busy.
 */
function holdingDisk(ctx: AppContext, label: string, type: string, title: string): DiskLocks {
  return {
    tryRun: (keys, busy, fn) =>
      ctx.locks.tryRun(keys, busy, async () => {
        const release = ctx.jobs.hold([destinationGroup(label)], { type, target: label, title });
        try {
          return await fn();
        } finally {
          release();
        }
      }),
  };
}

/**
 * External disks (07): list, register, format, mount, eject. Handlers parse, call the package, map
 * the result.
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
      // 07 §6.1: an empty body counts as `{}` (then 409 confirmation_required names the phrase).
      emptyBody: 'object',
      responses: { 200: { description: 'The formatted external disk', schema: ExternalDiskSchema } },
      handler: async ({ ctx, actor, params, body }) => {
        // Progress events (08 §12) from the first write on: a refused format publishes none.
        const progress = lazyProgress(ctx, 'disks.external.format', params.label);
        const deps = {
          ...externalDiskDeps(ctx, actor),
          locks: holdingDisk(ctx, params.label, 'disks.external.format', 'a format of this external disk'),
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
      handler: async ({ ctx, actor, params }) => {
        const locks = holdingDisk(ctx, params.label, 'disks.external.mount', 'a mount of this external disk');
        return ok(
          await (await operations()).mountExternal({ ...mountDeps(ctx, actor), locks }, params.label),
        );
      },
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
      handler: async ({ ctx, actor, params }) => {
        const locks = holdingDisk(
          ctx,
          params.label,
          'disks.external.eject',
          'an eject of this external disk',
        );
        return ok(
          await (await operations()).ejectExternal({ ...mountDeps(ctx, actor), locks }, params.label),
        );
      },
    }),
  ],
};
