/**
 * The update jobs put to work: registered with a job runner and a scheduler of `@appliance/jobs`,
 * and started on request (apt checked first, the job's target `apt`).
 */
import type { JobRunner, Scheduler } from '@appliance/jobs';
import {
  requireApt,
  systemRebootJob,
  type UpdateJobPorts,
  updateJobImplementations,
  updateSchedules,
  updatesApplyJob,
  updatesCheckJob,
} from './update-jobs.ts';

/** Registers the check, the apply and the reboot with `runner`, their schedules with `scheduler`. */
export function registerUpdateJobs<A>(
  runner: Pick<JobRunner<A>, 'register'>,
  scheduler: Pick<Scheduler, 'register'>,
  ports: UpdateJobPorts,
): void {
  const jobs = updateJobImplementations(ports);
  runner.register(updatesCheckJob, jobs.check);
  runner.register(updatesApplyJob, jobs.apply);
  runner.register(systemRebootJob, jobs.reboot);
  for (const schedule of updateSchedules(ports)) scheduler.register(schedule);
}

/**
 * Starts a check or an apply on request: refused `not_configured` without apt (or in a sandbox
 * without an apt configuration of its own), else the job's view.
 */
export async function startUpdatesJob<A>(
  ports: UpdateJobPorts,
  runner: Pick<JobRunner<A>, 'start'>,
  kind: typeof updatesCheckJob | typeof updatesApplyJob,
  actor: A | null,
) {
  await requireApt(ports);
  if (kind === updatesCheckJob) return (await runner.start(kind, {}, { target: 'apt', actor })).view;
  return (await runner.start(updatesApplyJob, {}, { target: 'apt', actor })).view;
}
