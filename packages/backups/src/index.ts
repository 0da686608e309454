export * from './core/plan.ts';
export * from './core/parts.ts';
export * from './core/schedule.ts';
export * from './core/retention.ts';
export * from './core/staleness.ts';
export * from './core/passphrase.ts';
export * from './core/progress.ts';
export * from './core/appdata.ts';
export * from './core/restore.ts';
export * from './core/drill.ts';
export * from './core/plan-ends.ts';
export * as backupEvents from './core/messages.ts';
export type { PartFailure, RaisedEvent } from './core/messages.ts';
export * from './node/restic.ts';
export * from './node/tree.ts';
export * from './node/stack.ts';
export type * from './ports.ts';
export * from './jobs/kinds.ts';
export {
  APPDATA_ROOT,
  asDestinationFailure,
  CONFIG_FILE,
  destinationLost,
  jobTempDir,
  openPlanRestic,
  passwordMissing,
  planNotFound,
  WATCH_MS,
} from './jobs/common.ts';
export { backupRunHandler } from './jobs/run.ts';
export { type JobRegistry, registerBackupJobs } from './jobs/register.ts';
export { backupRestoreHandler } from './jobs/restore.ts';
export { backupDrillHandler, CHECK_GROUPS, type DrillPartResult } from './jobs/drill.ts';
export { ensureRepository, type RetentionResult } from './jobs/repository.ts';
export {
  configArchiveName,
  configArchiveOf,
  listSnapshots,
  type ReadPorts,
  SIZES_PER_LISTING,
  type SnapshotView,
  snapshotConfigArchive,
  snapshotList,
  withRepository,
} from './operations/snapshots.ts';
export * from './operations/plans.ts';
export * from './operations/restore.ts';
export * from './node/archive-file.ts';
export * from './node/external-destination.ts';
export {
  checkStaleness,
  drillDue,
  type PlanScheduleState,
  planDue,
  planStale,
  registerBackupSchedules,
  STALENESS_CHECK_MS,
  type ScheduleDeps,
} from './jobs/schedules.ts';
