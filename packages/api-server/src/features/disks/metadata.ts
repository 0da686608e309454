/**
 * The data disks' metadata saved after a sync (@appliance/array-planner `saveArrayMetadata`), for
 * the parity sync. Wired from the store alone: the disk jobs' ports (deps.ts) use the parity sync.
 */
import { type MetadataOutcome, saveArrayMetadata as saveMetadataOf } from '@appliance/array-planner';
import type { JobHandle } from '@appliance/jobs';
import type { AppContext } from '../../context.ts';
import { slotStore } from './store.ts';

export type { MetadataOutcome };

/** Saves the metadata of every mounted data disk; resolves null when the job was cancelled. */
export function saveArrayMetadata(ctx: AppContext, job: JobHandle): Promise<MetadataOutcome | null> {
  return saveMetadataOf(
    { slots: slotStore(ctx), runner: ctx.runner, paths: ctx.paths, log: ctx.logger },
    job,
  );
}
