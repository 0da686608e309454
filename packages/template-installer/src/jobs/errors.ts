/** The stack jobs' refusals (stable codes; their HTTP statuses are the server's error map). */
import { refuse } from '@appliance/common';

export const stackBackupRunning = (stack: string, job: string) =>
  refuse(
    'stack_backup_running',
    `A backup of the stack ${stack} is running (job ${job}); wait for it to finish and try again.`,
    { stack, job },
  );

export const noCoveringPlan = (stack: string) =>
  refuse(
    'no_backup_plan',
    `No backup plan holds the stack ${stack}, so no snapshot can be taken; add it to a plan or update without a snapshot.`,
    { stack },
  );

export const snapshotPlanGone = (plan: string) =>
  refuse('no_backup_plan', `The backup plan ${plan} is gone; update without a snapshot or add a plan.`);

export const snapshotFailed = (stack: string, job: string, why: string) =>
  refuse(
    'snapshot_failed',
    `The snapshot before the update of ${stack} failed (backup job ${job}: ${why}); nothing was updated.`,
    { stack, job },
  );
