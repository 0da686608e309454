import { type AcceptedUpgrade, checkUpgradeRequest, measureSlot } from '@appliance/array-planner';
import { AppError, type DiskInventoryEntry } from '@appliance/common';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import type { JobHandle, JobView } from '../../services/jobs.ts';
import { listExternals, listSlots } from './store.ts';

/** What the upgrade job was asked to do (its `params`). */
export interface UpgradeParams {
  kind: AcceptedUpgrade['jobType'];
  mountpoint: string;
  device: string;
  filesystem: string;
  newMountpoint: string | null;
  /** The replacement's by-id name, to find it again if its kernel name changed. */
  byIdName: string | null;
}

/**
 * The disk upgrade job (03 §12) on the job runner: before any write, a fresh inventory and rows,
 * the replacement re-resolved through its by-id name, R1–R12 again, and the used bytes must still
 * fit. The copy phases are not implemented: the job then ends `failed` with `not_implemented`
 * without having written anything.
 */
export function upgradeJob(ctx: AppContext) {
  return {
    type: 'disk.upgrade',
    title: 'disk upgrade',
    groups: ['array'],
    async run(job: JobHandle, p: UpgradeParams) {
      job.phase('check');
      const inventory = await ctx.inventory.read();
      const replacement: DiskInventoryEntry | undefined = p.byIdName
        ? inventory.disks.find((d) => d.byIdName === p.byIdName)
        : inventory.disks.find((d) => d.device === p.device);
      if (!replacement)
        throw new AppError(
          409,
          'unmanaged_device',
          `The replacement ${p.device} is no longer attached; nothing was written.`,
        );
      const checked = checkUpgradeRequest({
        request: { mountpoint: p.mountpoint, device: replacement.device, filesystem: p.filesystem as 'xfs' },
        rows: listSlots(ctx.db),
        inventory,
        externals: listExternals(ctx.db),
        measurements: await measureSlot(ctx.paths, p.mountpoint),
        newMountpoint: p.newMountpoint,
        confirmation: `ERASE ${replacement.device}`,
        arrayStarted: p.kind === 'disk_upgrade_parity',
        runningDiskJobId: null,
      });
      if (checked.refusal)
        throw new AppError(
          checked.refusal.status,
          checked.refusal.code,
          checked.refusal.message,
          checked.refusal.details,
        );
      const plan = checked.plan.plan;
      if (
        plan.role === 'data' &&
        plan.previousUsedBytes !== null &&
        plan.previousUsedBytes > Math.floor(plan.sizeBytes * 0.98)
      )
        throw new AppError(
          409,
          'invalid_plan',
          `The files on ${plan.mountpoint} (${plan.previousUsedBytes} bytes) no longer fit on ${plan.replacementDevice}; nothing was written.`,
          { reason: 'does_not_fit', usedBytes: plan.previousUsedBytes, sizeBytes: plan.sizeBytes },
        );
      throw new AppError(
        501,
        'not_implemented',
        'The checks passed; the copy, verify and switch phases are not part of this version, so the job stopped before formatting anything.',
      );
    },
    after(_view: JobView) {},
  };
}

/** Starts the upgrade job of an accepted request (its audit row is `disks.array.upgrade`). */
export async function startUpgradeJob(ctx: AppContext, actor: Actor | null, accepted: AcceptedUpgrade) {
  const { plan } = accepted;
  const byIdName =
    (await ctx.inventory.read()).disks.find((d) => d.device === plan.replacementDevice)?.byIdName ?? null;
  const params: UpgradeParams = {
    kind: accepted.jobType,
    mountpoint: plan.mountpoint,
    device: plan.replacementDevice,
    filesystem: plan.filesystem,
    newMountpoint: plan.newMountpoint,
    byIdName,
  };
  const job = await ctx.jobs.start('disk.upgrade', {
    target: plan.mountpoint,
    params: { ...params },
    actor,
    auditOperation: 'disks.array.upgrade',
    audit: {
      status: 'started',
      type: accepted.jobType,
      device: plan.replacementDevice,
      newMountpoint: plan.newMountpoint,
    },
  });
  return { id: job.id, type: accepted.jobType };
}
