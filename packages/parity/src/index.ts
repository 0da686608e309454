export {
  type ChangeKind,
  type FileFixState,
  type LogRecord,
  isErrorMessage,
  parseLogLine,
  unescapeField,
} from './core/log.ts';
export {
  DIFF_PATH_LIMIT,
  DiffCollector,
  type DiffCounts,
  type DiffSummary,
  diffCounts,
  diffOf,
  summarizeDiff,
} from './core/diff.ts';
export {
  type GuardDecision,
  type GuardThresholds,
  decideSync,
  type SyncReason,
  syncReason,
} from './core/guard.ts';
export { type Progress, ProgressTracker } from './core/progress.ts';
export { type DamagedFile, ScrubCollector, type ScrubFindings } from './core/scrub.ts';
export { type ArrayStatus, summarizeStatus } from './core/status.ts';
export { DEFAULT_PARITY_SETTINGS, PARITY_LIMITS, type ParitySettings, TIME_OF_DAY } from './core/settings.ts';
export { nextDailySlot, nextScrubDue, nextSyncDue } from './core/schedule.ts';
export * as parityEvents from './core/messages.ts';
export { formatBytes, formatDuration, type RaisedEvent } from './core/messages.ts';
export {
  type FixFindings,
  type RunHandlers,
  type Snapraid,
  type SnapraidDeps,
  type SnapraidRun,
  createSnapraid,
  pickErrorLine,
  requireSnapraid,
} from './node/snapraid.ts';
export { isMountPoint, mountPoints } from './node/mounts.ts';
export type {
  Log,
  MetadataOutcome,
  MetadataSaver,
  ParityEventSink,
  ParityJobDeps,
  ParityJobs,
  ParitySlot,
  ParityState,
  ParityStore,
  RecordedDiff,
  RecordedStatus,
  SlotsReader,
} from './ports.ts';
export {
  ARRAY_GROUP,
  type BlockedSyncResult,
  type ScrubParams,
  type ScrubResult,
  type SyncOutcome,
  type SyncParams,
  type SyncResult,
  scrubJob,
  syncJob,
} from './jobs/kinds.ts';
export { type SyncOptions, syncImplementation, syncParity } from './jobs/sync.ts';
export { scrubImplementation } from './jobs/scrub.ts';
export { failed, handlers, missingSlots, recordStatus, requireWholeArray } from './jobs/steps.ts';
export { type ParityStatus, type ParityStatusDeps, parityStatus } from './jobs/status.ts';
export { type ParityScheduleDeps, paritySchedules } from './jobs/schedules.ts';
export { hostSlots } from './node/host-slots.ts';
export {
  type ParityRequestPorts,
  type ParitySettingsPorts,
  type ParitySettingsTx,
  type RequestJobs,
  paritySince,
  requestScrub,
  requestSync,
  requireParityArray,
  saveParitySettings,
} from './operations/requests.ts';
