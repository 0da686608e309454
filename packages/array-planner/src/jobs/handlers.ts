/**
 * The disk jobs' handlers over the ports, and their start: `runner.register(diskUpgradeJob,
 * diskJobHandler(ports, diskUpgradeJob.title))` (the same for `diskReplaceJob`), then
 * `startDiskJob(runner, ports, …)` for an accepted plan.
 */
import { AppError, diskLockKey, isoMillis } from '@appliance/common';
import type { JobImplementation, JobRunner } from '@appliance/jobs';
import {
  DISK_JOB_TYPES,
  type DiskJobKind,
  type DiskJobParams,
  diskJobParams,
  interruptedMessage,
  jobSlot,
  slotSide,
} from '../core/disk-job.ts';
import type { DiskUpgradePlan } from '../core/types.ts';
import type { DiskJobPorts } from '../ports.ts';
import { ARRAY_GROUP, DISK_JOBS, type DiskJobResult, diskReplaceJob, diskUpgradeJob } from './definitions.ts';
import { replaceData, replaceParity } from './replace.ts';
import { DiskJobRun } from './run.ts';
import { settle } from './settle.ts';
import { upgradeData, upgradeParity } from './upgrade.ts';

const KINDS = {
  upgrade_data: upgradeData,
  upgrade_parity: upgradeParity,
  replace_data: replaceData,
  replace_parity: replaceParity,
} as const;

/** The implementation of both disk job kinds (`title`: the kind's, for the recovery message). */
export function diskJobHandler(
  ports: DiskJobPorts,
  title: string,
): JobImplementation<DiskJobParams, DiskJobResult> {
  return {
    run: (job, params) => new DiskJobRun(ports, job, params).execute((run) => KINDS[run.p.kind](run)),
    async recover(view) {
      const p = view.params;
      if (typeof p.newFsUuid !== 'string')
        return {
          message: `The service stopped during the ${title} (recorded by an older version); it wrote nothing. Send the request again.`,
        };
      const side = slotSide(jobSlot(ports.slots.listSlots(), p), p);
      await settle(ports, p, side);
      return {
        message: interruptedMessage(p, side, view.phase),
        result: {
          kind: p.kind,
          slotOn: side,
          device: side === 'new' ? p.device : p.previousDevice,
          at: isoMillis(ports.clock.now()),
        },
        details: { slotOn: side, mountpoint: side === 'new' ? p.targetMountpoint : p.mountpoint },
      };
    },
  };
}

/** Registers both disk jobs on a runner. */
export function registerDiskJobs<A>(runner: JobRunner<A>, ports: DiskJobPorts): void {
  runner.register(diskUpgradeJob, diskJobHandler(ports, diskUpgradeJob.title));
  runner.register(diskReplaceJob, diskJobHandler(ports, diskReplaceJob.title));
}

/** The id of a disk job running now (for `disk_job_running`), else null. */
export function runningDiskJobId<A>(runner: JobRunner<A>): string | null {
  const h = runner.busy([ARRAY_GROUP]);
  return h?.jobId && DISK_JOBS.has(h.type) ? h.jobId : null;
}

/** What starting a disk job reads: the rows, the inventory, the locks and a fresh filesystem UUID. */
export type StartPorts = Pick<DiskJobPorts, 'slots' | 'inventory' | 'locks'> & {
  newUuid(): string;
};

/** Starts a disk job for an accepted plan (its audit row is `disks.array.upgrade` / `.replace`). */
export async function startDiskJob<A>(
  runner: JobRunner<A>,
  ports: StartPorts,
  actor: A | null,
  kind: DiskJobKind,
  plan: DiskUpgradePlan,
): Promise<{ id: string; type: string }> {
  const slot = ports.slots.listSlots().find((r) => r.mountpoint === plan.mountpoint);
  if (!slot) throw new AppError(404, 'disk_slot_not_found', `no data or parity disk at "${plan.mountpoint}"`);
  const byIdName =
    (await ports.inventory.read()).disks.find((d) => d.device === plan.replacementDevice)?.byIdName ?? null;
  const params = diskJobParams({ kind, slot, plan, byIdName, newFsUuid: ports.newUuid() });
  const upgrade = kind === 'upgrade_data' || kind === 'upgrade_parity';
  if (ports.locks.isHeld(diskLockKey(plan.replacementDevice)))
    throw new AppError(
      409,
      'disk_busy',
      `Another operation is using ${plan.replacementDevice}: wait for it to finish, then try again.`,
      { device: plan.replacementDevice },
    );
  const { view: job } = await runner.start(upgrade ? diskUpgradeJob : diskReplaceJob, params, {
    target: plan.mountpoint,
    actor,
    auditOperation: upgrade ? 'disks.array.upgrade' : 'disks.array.replace',
    audit: {
      status: 'started',
      type: DISK_JOB_TYPES[kind],
      device: plan.replacementDevice,
      newMountpoint: plan.newMountpoint,
    },
  });
  return { id: job.id, type: DISK_JOB_TYPES[kind] };
}
