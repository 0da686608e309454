/**
 * The backup job kinds (`@appliance/jobs`): a run, a restore drill and a restore of a plan, one at a
 * time per destination disk (`backup:<label>`). Declared apart from their handlers, so any caller
 * starts them typed (an app update's snapshot runs `backupRunJob`).
 */
import { defineJob } from '@appliance/jobs';
import type { PartRef } from '../core/parts.ts';
import { destinationGroup } from '../core/plan.ts';

export interface RunParams {
  plan: string;
  destination: string;
}

export interface RestoreParams {
  plan: string;
  destination: string;
  snapshot: string;
  part: PartRef;
  /** Relative to the snapshot's root; empty: the whole snapshot. */
  paths: string[];
  /** Logical new folder, or null: into its place. */
  folder: string | null;
}

export interface PartResult {
  part: PartRef;
  state: 'succeeded' | 'failed' | 'skipped';
  snapshot: string | null;
  files: number | null;
  bytes: number | null;
  dataAdded: number | null;
  seconds: number;
  /** restic's error line, or why the part could not run. */
  error: string | null;
  note: string | null;
}

/** What a run records: each part, and what retention did (null: it did not run). */
export interface BackupRunResult {
  parts: PartResult[];
  retention: unknown;
}

export const backupRunJob = defineJob<RunParams, BackupRunResult>({
  type: 'backup.run',
  title: 'backup',
  groups: (p) => [destinationGroup(p.destination)],
});

export const backupDrillJob = defineJob<RunParams, Record<string, unknown>>({
  type: 'backup.drill',
  title: 'restore drill',
  groups: (p) => [destinationGroup(p.destination)],
});

export const backupRestoreJob = defineJob<RestoreParams, Record<string, unknown>>({
  type: 'backup.restore',
  title: 'restore',
  groups: (p) => [destinationGroup(p.destination)],
});
