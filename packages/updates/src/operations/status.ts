/**
 * What `GET /updates` answers: the last check (its time, its failure, what it found, security
 * updates apart), when the next one is due, the last apply that ended and the update job running.
 */
import type { JobRunner, JobState } from '@appliance/jobs';
import type { UpgradablePackage } from '../core/apt.ts';
import { updatesApplyJob, updatesCheckJob } from '../jobs/update-jobs.ts';

/** The stored state of updates: the last apt check and the scheduled reboot. */
export interface UpdatesState {
  checkedAt: string | null;
  upgradable: UpgradablePackage[];
  checkError: string | null;
  rebootAt: string | null;
  rebootBy: string | null;
}

/** An apply that ended, whichever way (a blocked one never ran). */
const APPLY_ENDED: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'interrupted'];

export interface UpdatesStatusPorts {
  state(): UpdatesState;
  /** The job runner (`@appliance/jobs`): its running jobs and the newest apply. */
  jobs: Pick<JobRunner<never>, 'running' | 'latest'>;
  /** When the daily check is next due (the scheduler's view of `updates.check`), or null. */
  nextCheckAt(): string | null;
}

export function updatesStatus(ports: UpdatesStatusPorts) {
  const state = ports.state();
  const updateTypes = [updatesApplyJob.type, updatesCheckJob.type];
  const running = ports.jobs.running().find((j) => updateTypes.includes(j.type));
  return {
    checkedAt: state.checkedAt,
    checkError: state.checkError,
    nextCheckAt: ports.nextCheckAt(),
    pending: state.upgradable,
    security: state.upgradable.filter((p) => p.security),
    lastApply: ports.jobs.latest(updatesApplyJob, APPLY_ENDED),
    running: running ?? null,
  };
}
