import {
  createArray,
  listDisks,
  readMigration,
  replacePlan,
  setMigrationPending,
  setRemovalState,
  showArray,
  startReplace,
  startUpgrade,
  upgradePlan,
} from '@appliance/array-planner';
import { accepted, created, defineRoute, ok } from '../../http/route.ts';
import type { Feature } from '../feature.ts';
import { arrayPorts, diskJobPorts, diskJobStartPorts, guardSlots, registerDisks } from './deps.ts';
import {
  ArraySchema,
  ArraySetupBody,
  DiskListSchema,
  MigrationBody,
  MigrationSchema,
  PlanBody,
  PlanSchema,
  RemovalStateBody,
  ReplaceAcceptedSchema,
  ReplaceBody,
  ReplacePlanSchema,
  SlotSchema,
  UpgradeAcceptedSchema,
  UpgradeBody,
} from './schemas.ts';

/** 202 with the contract's answer (03 §6: jobId, type, queued) and the job's Location. */
const acceptedDiskJob = (job: { id: string; type: string }) =>
  accepted(job, { jobId: job.id, type: job.type, status: 'queued' });

/**
 * Disks and the array (03, 08 §9–§10, issue 21): inventory, array setup, removal state, the
 * read-only upgrade and replace plans, the upgrade and replace jobs, and the migration flag.
 * Handlers parse, call the package (@appliance/array-planner), map the result.
 */
export const feature: Feature = {
  name: 'disks',
  start(ctx) {
    registerDisks(ctx);
    // every start: the slots' mountpoint directories refuse writes while their disks are away (issue 32)
    const guarded = guardSlots(ctx).catch((err: unknown) =>
      ctx.logger.warn('could not guard the array mountpoints', {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    return async () => {
      await guarded;
    };
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/disks',
      role: 'viewer',
      summary: 'Fresh disk inventory (identity, filesystem facts, boot disk, lab loop devices)',
      tags: ['disks'],
      responses: { 200: { description: 'Every whole disk, sorted by device', schema: DiskListSchema } },
      handler: async ({ ctx }) => ok(await listDisks(diskJobPorts(ctx))),
    }),
    defineRoute({
      method: 'GET',
      path: '/disks/array',
      role: 'viewer',
      summary: 'The array: slots (parity, data, cache), create policy, pool and migration state',
      tags: ['disks'],
      responses: { 200: { description: 'The array, or configured: false', schema: ArraySchema } },
      handler: async ({ ctx }) => ok(await showArray(arrayPorts(ctx))),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array',
      role: 'admin',
      summary: 'Set up the array: format and mount parity, data and cache disks (typed confirmation)',
      tags: ['disks'],
      body: ArraySetupBody,
      responses: { 201: { description: 'The new array', schema: ArraySchema } },
      handler: async ({ ctx, actor, body }) => created(await createArray(arrayPorts(ctx), actor, body)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/disks/array/removal-state',
      role: 'admin',
      summary: 'Record the removal state of a data disk (the evacuation itself is not part of this version)',
      tags: ['disks'],
      body: RemovalStateBody,
      responses: { 200: { description: 'The slot', schema: SlotSchema } },
      handler: async ({ ctx, actor, body }) => ok(await setRemovalState(arrayPorts(ctx), actor, body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array/upgrade/plan',
      role: 'admin',
      summary: 'Preview moving a data or parity slot onto another disk (read-only)',
      tags: ['disks'],
      body: PlanBody,
      emptyBody: 'object', // 03 §6 (and §11: request as §6): an empty body is `{}`
      responses: { 200: { description: 'The upgrade plan', schema: PlanSchema } },
      handler: async ({ ctx, body }) => ok(await upgradePlan(diskJobPorts(ctx), body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array/replace/plan',
      role: 'admin',
      summary: 'Preview rebuilding a missing data or parity disk from parity onto a new disk (read-only)',
      tags: ['disks'],
      body: PlanBody,
      emptyBody: 'object', // 03 §6 (and §11: request as §6): an empty body is `{}`
      responses: { 200: { description: 'The replace plan', schema: ReplacePlanSchema } },
      handler: async ({ ctx, body }) => ok(await replacePlan(diskJobPorts(ctx), body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array/upgrade',
      role: 'admin',
      summary:
        'Upgrade a data or parity disk (typed confirmation): a job copies (data) or rebuilds (parity) onto the new disk, verifies, switches the slot and syncs',
      tags: ['disks'],
      body: UpgradeBody,
      responses: { 202: { description: 'The job (follow it at Location)', schema: UpgradeAcceptedSchema } },
      handler: async ({ ctx, actor, body }) =>
        acceptedDiskJob(await startUpgrade(ctx.jobs, diskJobStartPorts(ctx), actor, body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/disks/array/replace',
      role: 'admin',
      summary:
        'Replace a failed data or parity disk (typed confirmation): a job formats the new disk, rebuilds it from parity, checks it, records it and syncs',
      tags: ['disks'],
      body: ReplaceBody,
      responses: { 202: { description: 'The job (follow it at Location)', schema: ReplaceAcceptedSchema } },
      handler: async ({ ctx, actor, body }) =>
        acceptedDiskJob(await startReplace(ctx.jobs, diskJobStartPorts(ctx), actor, body)),
    }),
    defineRoute({
      method: 'GET',
      path: '/migration',
      role: 'viewer',
      summary: 'Whether a foreign-system migration is pending',
      tags: ['disks'],
      responses: { 200: { description: 'The migration flag', schema: MigrationSchema } },
      handler: ({ ctx }) => ok(readMigration(arrayPorts(ctx).records.settings())),
    }),
    defineRoute({
      method: 'POST',
      path: '/migration/pending',
      role: 'admin',
      summary: 'Set or clear the migration-pending flag (stands in for the foreign-system import)',
      tags: ['disks'],
      body: MigrationBody,
      responses: { 200: { description: 'The migration flag', schema: MigrationSchema } },
      handler: async ({ ctx, actor, body }) =>
        ok(await setMigrationPending(arrayPorts(ctx), actor, body.pending)),
    }),
  ],
};
