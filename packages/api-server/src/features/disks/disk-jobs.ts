import { type AcceptedUpgrade, checkUpgradeRequest, measureSlot } from '@appliance/array-planner';
import { conflict, type DiskInventoryEntry } from '@appliance/common';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { listExternals, listSlots } from './store.ts';

export type DiskJobStatus = 'queued' | 'running' | 'failed' | 'stopped';

export interface DiskJob {
  id: string;
  type: AcceptedUpgrade['jobType'];
  status: DiskJobStatus;
  mountpoint: string;
  device: string;
  /** Why the job ended (a refusal code, or `not_implemented` for the copy phases). */
  outcome: { code: string; message: string; details?: Record<string, unknown> } | null;
}

/**
 * Disk jobs of one server (03 §12). In memory: the schema has no jobs table yet, so a job lives as
 * long as the process. One disk job at a time.
 */
export class DiskJobs {
  private readonly jobs = new Map<string, DiskJob>();
  private readonly ctx: AppContext;
  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  active(): DiskJob | undefined {
    return [...this.jobs.values()].find((j) => j.status === 'queued' || j.status === 'running');
  }

  get(id: string): DiskJob | undefined {
    return this.jobs.get(id);
  }

  /** Records the job and its audit row, then runs its pre-write checks in the background. */
  async enqueue(actor: Actor | null, accepted: AcceptedUpgrade): Promise<DiskJob> {
    const running = this.active();
    if (running) {
      throw conflict(
        'disk_job_running',
        'Another disk job is queued or running: wait for it to finish, then try again.',
        { jobId: running.id },
      );
    }
    const { plan } = accepted;
    const job: DiskJob = {
      id: this.ctx.random.uuid(),
      type: accepted.jobType,
      status: 'queued',
      mountpoint: plan.mountpoint,
      device: plan.replacementDevice,
      outcome: null,
    };
    this.jobs.set(job.id, job);
    try {
      await this.ctx.writes.run((db) =>
        this.ctx.audit.record(db, actor, {
          operation: 'disks.array.upgrade',
          target: plan.mountpoint,
          details: {
            status: 'started',
            jobId: job.id,
            type: job.type,
            device: plan.replacementDevice,
            newMountpoint: plan.newMountpoint,
          },
        }),
      );
    } catch (err) {
      this.jobs.delete(job.id);
      throw err;
    }
    const byIdName =
      (await this.ctx.inventory.read()).disks.find((d) => d.device === plan.replacementDevice)?.byIdName ??
      null;
    setImmediate(() => {
      void this.run(job, plan.filesystem, plan.newMountpoint, byIdName);
    });
    return job;
  }

  /**
   * Before any write: a fresh inventory and rows, the replacement re-resolved through its by-id
   * name, R1–R12 again, and the used bytes must still fit. The copy phases are not implemented:
   * the job then stops without having written anything.
   */
  private async run(
    job: DiskJob,
    filesystem: string,
    newMountpoint: string | null,
    byIdName: string | null,
  ): Promise<void> {
    job.status = 'running';
    const progress = this.ctx.events.progress(job.id, 'disk.upgrade', job.mountpoint);
    try {
      const inventory = await this.ctx.inventory.read();
      const replacement: DiskInventoryEntry | undefined = byIdName
        ? inventory.disks.find((d) => d.byIdName === byIdName)
        : inventory.disks.find((d) => d.device === job.device);
      if (!replacement) {
        return this.end(
          job,
          'failed',
          {
            code: 'unmanaged_device',
            message: `The replacement ${job.device} is no longer attached; nothing was written.`,
          },
          progress,
        );
      }
      const rows = listSlots(this.ctx.db);
      const checked = checkUpgradeRequest({
        request: { mountpoint: job.mountpoint, device: replacement.device, filesystem: filesystem as 'xfs' },
        rows,
        inventory,
        externals: listExternals(this.ctx.db),
        measurements: await measureSlot(this.ctx.paths, job.mountpoint),
        newMountpoint,
        confirmation: `ERASE ${replacement.device}`,
        arrayStarted: job.type === 'disk_upgrade_parity',
        runningDiskJobId: null,
      });
      if (checked.refusal) return this.end(job, 'failed', checked.refusal, progress);
      const plan = checked.plan.plan;
      if (
        plan.role === 'data' &&
        plan.previousUsedBytes !== null &&
        plan.previousUsedBytes > Math.floor(plan.sizeBytes * 0.98)
      ) {
        return this.end(
          job,
          'failed',
          {
            code: 'invalid_plan',
            message: `The files on ${plan.mountpoint} (${plan.previousUsedBytes} bytes) no longer fit on ${plan.replacementDevice}; nothing was written.`,
            details: { reason: 'does_not_fit', usedBytes: plan.previousUsedBytes, sizeBytes: plan.sizeBytes },
          },
          progress,
        );
      }
      return this.end(
        job,
        'stopped',
        {
          code: 'not_implemented',
          message:
            'The checks passed; the copy, verify and switch phases are not part of this version, so the job stopped before formatting anything.',
        },
        progress,
      );
    } catch (err) {
      this.ctx.logger.error('disk job failed', { jobId: job.id, error: String(err) });
      return this.end(
        job,
        'failed',
        { code: 'internal', message: 'The disk job failed unexpectedly; nothing was written.' },
        progress,
      );
    }
  }

  private end(
    job: DiskJob,
    status: DiskJobStatus,
    outcome: { code: string; message: string; details?: Record<string, unknown> },
    progress: { finish: (p: Record<string, unknown>) => void },
  ): void {
    job.status = status;
    job.outcome = {
      code: outcome.code,
      message: outcome.message,
      ...(outcome.details ? { details: outcome.details } : {}),
    };
    progress.finish({ status, code: outcome.code });
  }
}

const registries = new WeakMap<AppContext, DiskJobs>();

/** The disk job registry of one server context. */
export function diskJobs(ctx: AppContext): DiskJobs {
  let jobs = registries.get(ctx);
  if (!jobs) {
    jobs = new DiskJobs(ctx);
    registries.set(ctx, jobs);
  }
  return jobs;
}
