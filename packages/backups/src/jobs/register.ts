/** The three backup jobs on one job runner, over the same ports. */
import type { JobImplementation, JobKind } from '@appliance/jobs';
import type { BackupPorts } from '../ports.ts';
import { backupDrillHandler } from './drill.ts';
import { backupDrillJob, backupRestoreJob, backupRunJob } from './kinds.ts';
import { backupRestoreHandler } from './restore.ts';
import { backupRunHandler } from './run.ts';

/** What registering needs of a job runner (`JobRunner.register`). */
export interface JobRegistry {
  register<P, R>(kind: JobKind<P, R>, impl: JobImplementation<P, R>): void;
}

/** Registers `backup.run`, `backup.drill` and `backup.restore` with their handlers. */
export function registerBackupJobs(runner: JobRegistry, ports: BackupPorts): void {
  runner.register(backupRunJob, backupRunHandler(ports));
  runner.register(backupDrillJob, backupDrillHandler(ports));
  runner.register(backupRestoreJob, backupRestoreHandler(ports));
}
