// Share data delete (05): the pure core (branches, checks, entry rules, report) and the host adapters
// (pre-flight, the threaded tree deleter, the end-to-end operation).
export * from './core/model.ts';
export * from './core/branches.ts';
export * from './core/checks.ts';
export * from './core/report.ts';
export {
  HardLinkTally,
  OTHER_FILESYSTEM,
  branchStopStatus,
  bytesFreedBy,
  entryAction,
  isSafeEntryName,
  type EntryAction,
} from './core/entry-rules.ts';
export * from './node/preflight.ts';
export * from './node/tree-deleter.ts';
export { closeIdleWorkers } from './node/worker-pool.ts';
export * from './node/share-data-delete.ts';
