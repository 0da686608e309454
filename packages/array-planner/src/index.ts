export * from './core/types.ts';
export { nextParityMountpoint } from './core/parity-mountpoint.ts';
export { arrayExists, checkSlot, findSlotDisk, inSlotOrder, slotIdentity, noArray } from './core/slots.ts';
export {
  checkListedDisk,
  checkNewDisk,
  checkReplacement,
  inUse,
  registeredExternal,
} from './core/replacement-checks.ts';
export type { ReplacementInput, ReplacementOk } from './core/replacement-checks.ts';
export { planUpgrade } from './core/upgrade-plan.ts';
export { planReplace } from './core/replace-plan.ts';
export { checkUpgradeRequest } from './core/upgrade-request.ts';
export { checkReplaceRequest } from './core/replace-request.ts';
export type { AcceptedReplace, ReplaceRequestInput } from './core/replace-request.ts';
export {
  DISK_JOB_PHASES,
  DISK_JOB_TYPES,
  diskJobParams,
  interruptedMessage,
  jobConfMembers,
  jobSlot,
  judgeCheck,
  keptOldMessage,
  phaseSpec,
  settlement,
  slotSide,
  snapraidDiskName,
  stagingMountpoint,
  switchedRow,
} from './core/disk-job.ts';
export type {
  CheckFindings,
  CheckVerdict,
  DiskJobKind,
  DiskJobParams,
  DiskJobPhase,
  PhaseSpec,
  Settlement,
  SlotSide,
} from './core/disk-job.ts';
export { type CopyProgress, parseRsyncProgress } from './core/rsync-progress.ts';
export {
  type BranchMode,
  branchMode,
  offlineBranchModes,
  replaceBranch,
  withBranchMode,
} from './core/pool-branches.ts';
export { mkfsArgs } from './core/mkfs.ts';
export type { AcceptedUpgrade, UpgradeRequestInput } from './core/upgrade-request.ts';
export { CREATE_POLICIES, checkNoArray, planArraySetup } from './core/array-setup.ts';
export type {
  ArraySetupDisk,
  ArraySetupPlan,
  ArraySetupRequest,
  CreatePolicy,
  PlannedMember,
} from './core/array-setup.ts';
export { renderSnapraidConf } from './core/snapraid-conf.ts';
export type { SnapraidMember } from './core/snapraid-conf.ts';
export { POOL_MOUNTPOINT, mergerfsOptions, minFreeSpaceBytes, poolBranches } from './core/mergerfs.ts';
export {
  DEFAULT_DEVICE_TIMEOUT_SEC,
  DEVICE_TIMEOUT_DROPIN,
  GENERATED_HEADER,
  escapeUnitPath,
  persistsMountUnits,
  renderMountUnits,
} from './core/mount-units.ts';
export type { MountUnitOptions, MountUnitSlot, RenderedMountUnits, UnitFile } from './core/mount-units.ts';
export { rebuildCommand } from './core/steps.ts';
export { ASSUMED_BYTES_PER_SECOND, estimate } from './core/estimate.ts';
export { EXT4_FILE_LIMIT_BYTES } from './core/warnings.ts';
export { toAppError } from './core/to-app-error.ts';
// adapters
export {
  checkSetupTools,
  executeArraySetup,
  guardSlotMountpoint,
  logGuard,
  mergerfsInstalled,
  minFreeSpaceMiB,
  undoMounts,
  arraySnapraidConf,
  writeSnapraidConf,
} from './node/array-setup.ts';
export {
  checkMounted,
  formatDisk,
  mountByUuid,
  mountedReadOnly,
  readFsUuid,
  remount,
  unmount,
} from './node/disk-tools.ts';
export { type CopyHandlers, type CopyResult, copyTree, requireCopyTools, rsyncArgs } from './node/copy.ts';
export {
  type MetadataFiles,
  type RestoreResult,
  type SaveResult,
  metadataFiles,
  requireMetadataTools,
  restoreMetadata,
  saveMetadata,
} from './node/metadata.ts';
export { followOfflineBranches, readBranches, setBranchMode, swapBranch } from './node/pool-control.ts';
export { type SettleResult, settleSlot } from './node/settle.ts';
export type { ArraySetupDeps, ArraySetupResult, FormattedMember } from './node/array-setup.ts';
export {
  DEFAULT_UNIT_DIR,
  MountUnitStepError,
  SYSTEMD_RUN_DIR,
  installMountUnits,
  removeMountUnits,
  replaceMountUnits,
} from './node/mount-units.ts';
export type { InstalledMountUnits, MountUnitDeps } from './node/mount-units.ts';
export { isMountedAt, isPoolMounted, readMounts } from './node/pool-state.ts';
export { measureSlot } from './node/slot-measurements.ts';
export { type MountpointGuard, guardMountpoint } from './node/mountpoint-guard.ts';
// ports and jobs (the disk jobs run without the server: see README)
export type * from './ports.ts';
export { doesNotFit, formatBytes } from './core/fit.ts';
export {
  ARRAY_GROUP,
  DISK_JOBS,
  type DiskJobResult,
  diskReplaceJob,
  diskUpgradeJob,
} from './jobs/definitions.ts';
export {
  diskJobHandler,
  registerDiskJobs,
  runningDiskJobId,
  type StartPorts,
  startDiskJob,
} from './jobs/handlers.ts';
export { settle, strayEntries, writeArrayConf } from './jobs/settle.ts';
export { type ArraySetupPorts, type SetupProgress, setupArray } from './operations/setup-array.ts';
export {
  type DiskJobRequest,
  type PlanPorts,
  replacePlan,
  startReplace,
  startUpgrade,
  upgradePlan,
} from './operations/plans.ts';
export { type MetadataOutcome, saveArrayMetadata } from './operations/save-metadata.ts';
export { type GuardPorts, SlotGuards } from './operations/guard-slots.ts';
export { listDisks, type ReadPorts, readArray, withMounted } from './operations/read-array.ts';
export {
  type ArrayPorts,
  createArray,
  readMigration,
  recordArray,
  setMigrationPending,
  setRemovalState,
  showArray,
} from './operations/array-records.ts';
