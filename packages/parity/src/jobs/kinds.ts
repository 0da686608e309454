/**
 * The parity job kinds (issue 27), typed by their params and results: `parity.sync` (check the
 * slots → diff → the deletion guard → touch → sync → metadata → status) and `parity.scrub` (check
 * the slots → scrub → status). A runner implements them with `syncImplementation` and
 * `scrubImplementation` (./sync.ts, ./scrub.ts) and starts them by these constants.
 */
import { defineJob } from '@appliance/jobs';
import type { DiffCounts } from '../core/diff.ts';
import type { DamagedFile } from '../core/scrub.ts';
import type { MetadataOutcome } from '../ports.ts';

/** Every array job shares this exclusion group (sync, scrub, disk jobs, array setup, share data delete). */
export const ARRAY_GROUP = 'array';

export interface SyncParams {
  /** Skip the deletion guard. */
  force: boolean;
}

export interface ScrubParams {
  percent: number;
  olderThanDays: number;
}

/** What a sync did (the parity sync job's result, and a disk job's sync). */
export interface SyncOutcome {
  changes: DiffCounts;
  reason: string;
  forced: boolean;
  bytes: number;
  /**
   * The per-disk metadata SnapRAID does not keep (owners, modes, ACLs, xattrs), saved after the
   * sync; null when there was nothing to sync (`onlyIfChanged`).
   */
  metadata: MetadataOutcome | null;
}

/** What a finished sync records: its outcome and how long it took. */
export type SyncResult = SyncOutcome & { seconds: number };

/** What a blocked sync records (the deletion guard stopped it). */
export interface BlockedSyncResult {
  changes: DiffCounts;
  crossed: unknown[];
  removedPaths: string[];
  blockedSince: string;
}

export interface ScrubResult {
  percent: number;
  olderThanDays: number;
  bytes: number;
  dataErrors: number;
  ioErrors: number;
  fileErrors: number;
  files: DamagedFile[];
}

/** `parity.sync`: diff → the deletion guard → touch → sync → status. */
export const syncJob = defineJob<SyncParams, SyncResult | BlockedSyncResult>({
  type: 'parity.sync',
  title: 'parity sync',
  groups: [ARRAY_GROUP],
});

/** `parity.scrub`: check the slots → scrub → status. */
export const scrubJob = defineJob<ScrubParams, ScrubResult>({
  type: 'parity.scrub',
  title: 'parity scrub',
  groups: [ARRAY_GROUP],
});
