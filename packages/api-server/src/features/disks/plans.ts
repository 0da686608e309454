import {
  type ArraySlot,
  checkSlot,
  checkUpgradeRequest,
  type DiskUpgradePlan,
  isPoolMounted,
  measureSlot,
  type PlanRequest,
  planReplace,
  planUpgrade,
  toAppError,
} from '@appliance/array-planner';
import type * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { startUpgradeJob } from './disk-jobs.ts';
import type { UpgradeBody } from './schemas.ts';
import { listExternals, listSlots } from './store.ts';

/**
 * Gathers what a plan reads, in the order of 03 §8: rows and the slot checks first (no inventory
 * read for a request that cannot name a slot), then a fresh inventory, then the slot's statfs.
 * Read-only: no transaction, no lock, no audit row.
 */
async function gather(ctx: AppContext, request: PlanRequest, measure: boolean) {
  const rows: ArraySlot[] = listSlots(ctx.db);
  const slot = checkSlot(rows, request.mountpoint);
  if (slot.refusal) throw toAppError(slot.refusal);
  const inventory = await ctx.inventory.read();
  const measurements = measure ? await measureSlot(ctx.paths, request.mountpoint) : undefined;
  return {
    request,
    rows,
    inventory,
    externals: listExternals(ctx.db),
    ...(measurements ? { measurements } : {}),
  };
}

/** `POST /disks/array/upgrade/plan` (03). */
export async function upgradePlan(ctx: AppContext, request: PlanRequest): Promise<DiskUpgradePlan> {
  const result = planUpgrade(await gather(ctx, request, true));
  if (result.refusal) throw toAppError(result.refusal);
  return result.plan;
}

/** `POST /disks/array/replace/plan` (03 §11). */
export async function replacePlan(ctx: AppContext, request: PlanRequest) {
  const result = planReplace(await gather(ctx, request, false));
  if (result.refusal) throw toAppError(result.refusal);
  return result.plan;
}

/**
 * `POST /disks/array/upgrade` (03 §12): the refusals in order, then a queued disk job. The job
 * re-checks everything before any write; its copy/verify/switch phases are not part of this
 * version (it stops before formatting — see docs/decisions/disks.md).
 */
export async function startUpgrade(
  ctx: AppContext,
  actor: Actor | null,
  body: v.InferOutput<typeof UpgradeBody>,
) {
  const input = await gather(
    ctx,
    { mountpoint: body.mountpoint, device: body.device, filesystem: body.filesystem },
    true,
  );
  const checked = checkUpgradeRequest({
    ...input,
    newMountpoint: body.newMountpoint,
    confirmation: body.confirmation,
    arrayStarted: await isPoolMounted(ctx.paths),
    runningDiskJobId: ctx.jobs.busy(['array'])?.jobId ?? null,
  });
  if (checked.refusal) throw toAppError(checked.refusal);
  return startUpgradeJob(ctx, actor, checked.plan);
}
