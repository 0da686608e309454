// The mover (issue 37): the pure core (plan by create policy and minfreespace, skips, report) and
// the host adapters (cache scan, open-for-writing check, rsync batches with a journal, the run).
export * from './core/model.ts';
export { batchMoves, footprint, moveUnits, parentOf, planMoves, type PlanInput } from './core/plan.ts';
export * from './core/report.ts';
export { readJournal, settleBatch, sha256, TEMP_DIR_NAME, type BatchJournal } from './node/batch.ts';
export { filesOpenForWriting, presence, scanCache } from './node/scan.ts';
export * from './node/mover.ts';
export * from './job.ts';
export * from './ports.ts';
export * from './operations.ts';
