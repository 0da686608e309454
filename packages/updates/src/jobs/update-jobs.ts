/**
 * The jobs of updates and reboots (issue 38) as typed definitions of `@appliance/jobs`, their
 * implementations and schedules over ports: the check (daily), the apply (a configuration archive
 * first; never during an array job), the reboot (at the scheduled time, waiting for array jobs).
 * The server registers them with its runner and scheduler (features/updates/deps.ts).
 */
import { type CommandRunner, isoMillis } from '@appliance/common';
import { defineJob, type JobImplementation, type JobKind, type Schedule } from '@appliance/jobs';
import { aptMissing, aptNotConfigured } from '../core/refusals.ts';
import { rebootNow } from '../operations/reboot.ts';
import { type ApplyOutcome, runApply, runCheck, type UpdatePorts } from '../operations/updates.ts';

/** The daily check. */
export const CHECK_INTERVAL_MS = 24 * 3600 * 1000;
/** No check or apply runs twice; an apply never runs during an array job (sync, scrub, disk job). */
const CHECK_GROUPS = ['updates'] as const;
const APPLY_GROUPS = ['array', 'updates'] as const;
const REBOOT_GROUPS = ['array'] as const;

type NoParams = Record<string, never>;

/** `updates.check`: the package lists read, what is pending counted. */
export const updatesCheckJob = defineJob<NoParams, { checkedAt: string; pending: number; security: number }>({
  type: 'updates.check',
  title: 'update check',
  groups: CHECK_GROUPS,
});

/** `updates.apply`: the pending upgrades installed. */
export const updatesApplyJob = defineJob<NoParams, ApplyOutcome>({
  type: 'updates.apply',
  title: 'update',
  groups: APPLY_GROUPS,
});

/** `system.reboot`: the machine restarted. */
export const systemRebootJob = defineJob<NoParams, { rebootedAt: string }>({
  type: 'system.reboot',
  title: 'reboot',
  groups: REBOOT_GROUPS,
});

export interface UpdateJobPorts {
  updates: UpdatePorts;
  runner: CommandRunner;
  /** A root prefix: never the machine's own apt or reboot. */
  sandbox: boolean;
  /** apt installed where the service looks for its tools (a Debian box). */
  aptInstalled(): boolean;
  /** The scheduled reboot's time (ISO 8601), or null. */
  rebootAt(): string | null;
  /** Forgets the scheduled reboot (once its job has started). */
  clearReboot(): Promise<void>;
  /** Starts a job by its definition, as a schedule does; resolves with its id. */
  startScheduled<P, R>(kind: JobKind<P, R>, params: P, target: string): Promise<string>;
  /** After an apply, whatever its outcome: the reboot facts read again (a new kernel, libc). */
  afterApply(): Promise<void>;
}

/**
 * Whether this box checks for updates: apt installed, and either the real host or a sandbox with
 * an apt configuration of its own (a sandbox never checks this machine's packages).
 */
export const updatesConfigured = (
  ports: Pick<UpdateJobPorts, 'aptInstalled' | 'sandbox' | 'updates'>,
): boolean => ports.aptInstalled() && (!ports.sandbox || ports.updates.apt.aptConfig !== null);

/**
 * Refuses a check or an apply: apt-get missing (`not_configured`), or a sandbox without an apt
 * configuration of its own, so it never checks or upgrades the machine it runs on.
 */
export async function requireApt(ports: UpdateJobPorts): Promise<void> {
  if (!(await ports.runner.resolve('apt-get'))) throw aptMissing();
  if (!updatesConfigured(ports)) throw aptNotConfigured();
}

export interface UpdateJobImplementations {
  check: JobImplementation<NoParams, { checkedAt: string; pending: number; security: number }>;
  apply: JobImplementation<NoParams, ApplyOutcome>;
  reboot: JobImplementation<NoParams, { rebootedAt: string }>;
}

/** What each job runs. */
export function updateJobImplementations(ports: UpdateJobPorts): UpdateJobImplementations {
  return {
    check: {
      run: async () => {
        const r = await runCheck(ports.updates);
        return { checkedAt: r.checkedAt, pending: r.packages.length, security: r.security.length };
      },
    },
    apply: {
      run: (job) =>
        runApply(ports.updates, {
          phase: (name) => job.phase(name),
          progress: (p) => job.progress({ percent: p.percent, package: p.package, message: p.message }),
          output: (line) => job.output(line),
          signal: job.signal,
          onSpawn: (pid) => job.pid(pid),
        }),
      // an upgrade may have flagged a reboot (a new kernel, libc)
      after: () => ports.afterApply(),
    },
    reboot: {
      run: async () => {
        await rebootNow(ports.runner, { sandbox: ports.sandbox });
        return { rebootedAt: isoMillis(ports.updates.clock.now()) };
      },
    },
  };
}

/** The daily check (from the start when it never ran), and the scheduled reboot. */
export function updateSchedules(ports: UpdateJobPorts): Schedule[] {
  return [
    {
      name: 'updates.check',
      nextDue: (last) =>
        updatesConfigured(ports)
          ? last
            ? new Date(last.getTime() + CHECK_INTERVAL_MS)
            : ports.updates.clock.now()
          : null,
      run: () => ports.startScheduled(updatesCheckJob, {}, 'apt'),
    },
    {
      name: 'system.reboot',
      nextDue: () => {
        const at = ports.rebootAt();
        return at ? new Date(at) : null;
      },
      // refused with job_running while an array job runs: the scheduler tries again at its next tick
      run: async () => {
        const id = await ports.startScheduled(systemRebootJob, {}, 'system');
        await ports.clearReboot();
        return id;
      },
    },
  ];
}
