import {
  type ArraySlot,
  checkReplaceRequest,
  checkSlot,
  checkUpgradeRequest,
  type DiskJobKind,
  type DiskUpgradePlan,
  isPoolMounted,
  measureSlot,
  type PlanRequest,
  runningDiskJobId,
  startDiskJob,
  strayEntries,
  type PlanResult,
  planReplace,
  planUpgrade,
  toAppError,
} from '@appliance/array-planner';
import { requireTools } from '@appliance/common';
import type * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { diskJobStartPorts } from './deps.ts';
import type { ReplaceBody, UpgradeBody } from './schemas.ts';
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
 * `POST /disks/array/upgrade` (03 §12): the refusals in order, the tools the job needs, then the
 * job (which checks everything again before it writes).
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
    runningDiskJobId: runningDiskJobId(ctx.jobs),
  });
  return start(ctx, actor, checked, 'upgrade');
}

/**
 * `POST /disks/array/replace` (issue 21): the replace plan's checks, the typed confirmation,
 * another disk job, files in the empty mountpoint, the tools; then the job.
 */
export async function startReplace(
  ctx: AppContext,
  actor: Actor | null,
  body: v.InferOutput<typeof ReplaceBody>,
) {
  const input = await gather(
    ctx,
    { mountpoint: body.mountpoint, device: body.device, filesystem: body.filesystem },
    false,
  );
  const slot = input.rows.find((r) => r.mountpoint === body.mountpoint);
  const checked = checkReplaceRequest({
    ...input,
    confirmation: body.confirmation,
    runningDiskJobId: runningDiskJobId(ctx.jobs),
    strayEntries: slot?.role === 'data' ? await strayEntries(ctx, body.mountpoint) : [],
  });
  return start(ctx, actor, checked, 'replace');
}

/** A checked request: its refusal, or the tools it needs and then its job. */
async function start(
  ctx: AppContext,
  actor: Actor | null,
  checked: PlanResult<{ plan: DiskUpgradePlan }>,
  op: 'upgrade' | 'replace',
) {
  if (checked.refusal) throw toAppError(checked.refusal);
  const { plan } = checked.plan;
  const kind: DiskJobKind = `${op}_${plan.role}`;
  await requireJobTools(ctx, plan, kind);
  return startDiskJob(ctx.jobs, diskJobStartPorts(ctx), actor, kind, plan);
}

/** Every host tool the job will run is installed: `501 not_configured` naming the package, before anything starts. */
async function requireJobTools(ctx: AppContext, plan: DiskUpgradePlan, kind: DiskJobKind): Promise<void> {
  const tools = [
    'wipefs',
    `mkfs.${plan.filesystem}`,
    'blkid',
    'mount',
    'umount',
    'findmnt',
    'snapraid',
    'setpriv',
  ];
  if (kind === 'upgrade_data') tools.push('rsync');
  if (kind === 'replace_data') tools.push('setfacl', 'setfattr');
  if (plan.role === 'data' && (await isPoolMounted(ctx.paths))) tools.push('getfattr', 'setfattr');
  await requireTools(ctx.runner, tools);
}
