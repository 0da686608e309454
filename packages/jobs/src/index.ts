export {
  defineJob,
  groupsOf,
  type JobImplementation,
  type JobKind,
  type ParamsOf,
  type ResultOf,
} from './definition.ts';
export { HOLD_TITLES, jobRunning } from './holds.ts';
export { PERSIST_PROGRESS_MS } from './live-job.ts';
export type {
  AuditEntry,
  Clock,
  Gate,
  JobEvents,
  JobListQuery,
  JobStore,
  Logger,
  ProgressEvent,
  Processes,
  RunnerPorts,
  StoredJob,
  Timers,
} from './ports.ts';
export { RECOVERY_POLL_MS, RECOVERY_WAIT_MS } from './recovery.ts';
export { JobRunner, type StartedJob, type StartOptions } from './runner.ts';
export {
  type Schedule,
  type ScheduleRun,
  type ScheduleStore,
  Scheduler,
  type ScheduleView,
  TICK_MS,
} from './scheduler.ts';
export {
  type Hold,
  type HoldMode,
  JobBlocked,
  type JobError,
  type JobHandle,
  type JobProgress,
  type JobState,
  type JobTrigger,
  type JobView,
  OUTPUT_LINE_CHARS,
  OUTPUT_LINES,
} from './types.ts';
export * from './conditions/index.ts';
export { fromRecord, interruptedFields, type JobRecord, liveFields, toRecord } from './record.ts';
export {
  KEEP_PER_TYPE,
  PRUNE_INTERVAL_MS,
  RETENTION_DAYS,
  retentionCutoff,
  startRetention,
} from './retention.ts';
export { ENDED_STATES, UNFINISHED_STATES } from './states.ts';
export { jobPage, requireJob } from './views.ts';
