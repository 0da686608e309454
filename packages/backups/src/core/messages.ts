/**
 * The texts of the backup events of 04's catalog: what happened, to what, restic's own line, and
 * what to do. Plain functions over plain data.
 */
import { type PartRef, partLabel } from './parts.ts';

export interface RaisedEvent {
  eventType:
    | 'config_backup_failed'
    | 'appdata_backup_failed'
    | 'backup_destination_stale'
    | 'restore_drill_failed';
  title: string;
  message: string;
}

export interface PartFailure {
  part: PartRef;
  /** restic's error line, or the reason the part could not run. */
  reason: string;
}

const how = (scheduled: boolean) => (scheduled ? 'scheduled' : 'requested');

/** A reason set inside a sentence: without its own closing period ("…log." + "." is "log.."). */
export const clause = (reason: string) => reason.trim().replace(/[.\s]+$/, '');

export function configBackupFailed(input: { plan: string; reason: string; scheduled: boolean }): RaisedEvent {
  return {
    eventType: 'config_backup_failed',
    title: `Configuration backup failed (plan ${input.plan})`,
    message: `The ${how(input.scheduled)} backup of the configuration (plan ${input.plan}) failed: ${clause(input.reason)}. The previous snapshots are untouched; fix the cause, then run it again (appliance backups run ${input.plan}).`,
  };
}

/** One event for every stack or share of a run that failed, naming each with restic's line. */
export function appdataBackupFailed(input: {
  plan: string;
  failures: readonly PartFailure[];
  scheduled: boolean;
}): RaisedEvent {
  const stacks = input.failures.filter((f) => f.part.kind === 'stack');
  const what = input.failures.map((f) => `${partLabel(f.part)}: ${clause(f.reason)}`).join('; ');
  const title =
    input.failures.length === 1
      ? `Backup of ${partLabel(input.failures[0]!.part)} failed (plan ${input.plan})`
      : `Backup of ${input.failures.length} ${stacks.length === input.failures.length ? 'stacks' : 'stacks and shares'} failed (plan ${input.plan})`;
  return {
    eventType: 'appdata_backup_failed',
    title,
    message: `The ${how(input.scheduled)} backup (plan ${input.plan}) failed for ${what}. The previous snapshots are untouched; fix the cause, then run it again (appliance backups run ${input.plan}).`,
  };
}

export function destinationStale(input: {
  plan: string;
  destination: string;
  lastSuccessAt: string | null;
  periodDays: number;
}): RaisedEvent {
  const last = input.lastSuccessAt
    ? `the last successful backup was at ${input.lastSuccessAt}`
    : 'no backup has succeeded yet';
  return {
    eventType: 'backup_destination_stale',
    title: `Backup disk "${input.destination}" has no recent backup (plan ${input.plan})`,
    message: `Plan ${input.plan} should back up to "${input.destination}" every ${input.periodDays === 1 ? 'day' : `${input.periodDays} days`}, but ${last}. Check that the disk is attached and the last runs (appliance backups plans), then run it (appliance backups run ${input.plan}).`,
  };
}

export function drillFailed(input: { plan: string; reason: string; scheduled: boolean }): RaisedEvent {
  return {
    eventType: 'restore_drill_failed',
    title: `Restore drill failed (plan ${input.plan})`,
    message: `The ${how(input.scheduled)} restore drill of plan ${input.plan} failed: ${clause(input.reason)}. The backups on this disk may not be restorable: run "restic check --read-data" on the repository or run a new backup to another disk, and keep the old disk until a drill passes.`,
  };
}
