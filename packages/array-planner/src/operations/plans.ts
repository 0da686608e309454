/**
 * The upgrade and replace plans (03 §6, §11; read-only) and the accepted requests that start their
 * jobs (03 §12, issue 21): the refusals in order, the tools the job needs, then the job (which
 * checks everything again before it writes).
 */
import { requireTools } from '@appliance/common';
import type { JobRunner } from '@appliance/jobs';
import type { DiskJobKind } from '../core/disk-job.ts';
import { planReplace } from '../core/replace-plan.ts';
import { checkReplaceRequest } from '../core/replace-request.ts';
import { checkSlot } from '../core/slots.ts';
import { toAppError } from '../core/to-app-error.ts';
import type { ArrayFilesystem, ArraySlot, DiskUpgradePlan, PlanRequest, PlanResult } from '../core/types.ts';
import { planUpgrade } from '../core/upgrade-plan.ts';
import { checkUpgradeRequest } from '../core/upgrade-request.ts';
import { isPoolMounted } from '../node/pool-state.ts';
import { measureSlot } from '../node/slot-measurements.ts';
import { runningDiskJobId, type StartPorts, startDiskJob } from '../jobs/handlers.ts';
import { strayEntries } from '../jobs/settle.ts';
import type { DiskJobPorts } from '../ports.ts';

export type PlanPorts = Pick<DiskJobPorts, 'paths' | 'runner' | 'inventory' | 'slots'>;

/** An upgrade or replace request as the API accepts it. */
export interface DiskJobRequest {
  mountpoint: string;
  device: string;
  filesystem?: ArrayFilesystem | null | undefined;
  confirmation?: unknown;
}

/**
 * Gathers what a plan reads, in the order of 03 §8: rows and the slot checks first (no inventory
 * read for a request that cannot name a slot), then a fresh inventory, then the slot's statfs.
 * Read-only: no transaction, no lock, no audit row.
 */
async function gather(ports: PlanPorts, request: PlanRequest, measure: boolean) {
  const rows: ArraySlot[] = ports.slots.listSlots();
  const slot = checkSlot(rows, request.mountpoint);
  if (slot.refusal) throw toAppError(slot.refusal);
  const inventory = await ports.inventory.read();
  const measurements = measure ? await measureSlot(ports.paths, request.mountpoint) : undefined;
  return {
    request,
    rows,
    inventory,
    externals: ports.slots.listExternals(),
    ...(measurements ? { measurements } : {}),
  };
}

/** The upgrade plan (03 §6). */
export async function upgradePlan(ports: PlanPorts, request: PlanRequest): Promise<DiskUpgradePlan> {
  const result = planUpgrade(await gather(ports, request, true));
  if (result.refusal) throw toAppError(result.refusal);
  return result.plan;
}

/** The replace plan (03 §11). */
export async function replacePlan(ports: PlanPorts, request: PlanRequest) {
  const result = planReplace(await gather(ports, request, false));
  if (result.refusal) throw toAppError(result.refusal);
  return result.plan;
}

const planRequest = (body: DiskJobRequest): PlanRequest => ({
  mountpoint: body.mountpoint,
  device: body.device,
  filesystem: body.filesystem,
});

/** Starts `disk.upgrade` for an accepted request (`newMountpoint`: a parity upgrade's). */
export async function startUpgrade<A>(
  runner: JobRunner<A>,
  ports: PlanPorts & StartPorts,
  actor: A | null,
  body: DiskJobRequest & { newMountpoint?: string | null | undefined },
) {
  const input = await gather(ports, planRequest(body), true);
  const checked = checkUpgradeRequest({
    ...input,
    newMountpoint: body.newMountpoint,
    confirmation: body.confirmation,
    runningDiskJobId: runningDiskJobId(runner),
  });
  return start(runner, ports, actor, checked, 'upgrade');
}

/**
 * Starts `disk.replace` for an accepted request: the replace plan's checks, the typed
 * confirmation, another disk job, files in the empty mountpoint, the tools; then the job.
 */
export async function startReplace<A>(
  runner: JobRunner<A>,
  ports: PlanPorts & StartPorts,
  actor: A | null,
  body: DiskJobRequest,
) {
  const input = await gather(ports, planRequest(body), false);
  const slot = input.rows.find((r) => r.mountpoint === body.mountpoint);
  const checked = checkReplaceRequest({
    ...input,
    confirmation: body.confirmation,
    runningDiskJobId: runningDiskJobId(runner),
    strayEntries: slot?.role === 'data' ? await strayEntries(ports, body.mountpoint) : [],
  });
  return start(runner, ports, actor, checked, 'replace');
}

/** A checked request: its refusal, or the tools it needs and then its job. */
async function start<A>(
  runner: JobRunner<A>,
  ports: PlanPorts & StartPorts,
  actor: A | null,
  checked: PlanResult<{ plan: DiskUpgradePlan }>,
  op: 'upgrade' | 'replace',
) {
  if (checked.refusal) throw toAppError(checked.refusal);
  const { plan } = checked.plan;
  const kind: DiskJobKind = `${op}_${plan.role}`;
  await requireJobTools(ports, plan, kind);
  return startDiskJob(runner, ports, actor, kind, plan);
}

/** Every host tool the job will run is installed: `501 not_configured` naming the package, before anything starts. */
async function requireJobTools(ports: PlanPorts, plan: DiskUpgradePlan, kind: DiskJobKind): Promise<void> {
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
  if (plan.role === 'data' && (await isPoolMounted(ports.paths))) tools.push('getfattr', 'setfattr');
  await requireTools(ports.runner, tools);
}
