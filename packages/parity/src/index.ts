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
