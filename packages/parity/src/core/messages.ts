/**
 * The notification texts of the parity events (04's catalog): what happened, the figures, and what
 * to do. Plain functions over plain data.
 */
import type { DiffSummary } from './diff.ts';
import type { GuardDecision } from './guard.ts';
import type { DamagedFile } from './scrub.ts';

export interface RaisedEvent {
  eventType:
    | 'sync_succeeded'
    | 'sync_failed'
    | 'sync_blocked_threshold'
    | 'scrub_errors_found'
    | 'array_degraded';
  title: string;
  message: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

export function syncSucceeded(input: { diff: DiffSummary; bytes: number; seconds: number }): RaisedEvent {
  const d = input.diff;
  return {
    eventType: 'sync_succeeded',
    title: 'Parity sync finished',
    message: `Parity is up to date: ${plural(d.added, 'file')} added, ${d.removed} removed, ${d.updated} updated, ${d.moved} moved; ${formatBytes(input.bytes)} processed in ${formatDuration(input.seconds)}.`,
  };
}

export function syncFailed(input: { reason: string; scheduled: boolean }): RaisedEvent {
  return {
    eventType: 'sync_failed',
    title: 'Parity sync failed',
    message: `The ${input.scheduled ? 'scheduled' : 'requested'} parity sync failed: ${input.reason}. Parity still protects the files of the last successful sync; fix the cause, then run a sync again (appliance array sync).`,
  };
}

export function syncBlocked(input: {
  diff: DiffSummary;
  decision: Extract<GuardDecision, { proceed: false }>;
  shown?: number;
}): RaisedEvent {
  const shown = input.shown ?? 10;
  const what = input.decision.crossed
    .map(
      (c) =>
        `${plural(c.value, `${c.count === 'removed' ? 'removed' : 'updated'} file`)} (threshold ${c.threshold})`,
    )
    .join(' and ');
  const removed = input.diff.paths.removed.slice(0, shown);
  const list =
    removed.length > 0
      ? ` First removed: ${removed.join(', ')}${input.diff.removed > removed.length ? `, and ${input.diff.removed - removed.length} more` : ''}.`
      : '';
  return {
    eventType: 'sync_blocked_threshold',
    title: 'Parity sync blocked by the deletion guard',
    message: `The parity sync did not run: the array has ${what} since the last sync; parity was kept as it was, so the files can still be restored.${list} If the changes are intended, run a forced sync (appliance array sync --force); if not, restore the files first (the removed paths: GET /disks/array/parity/diff).`,
  };
}

export function scrubErrors(input: {
  dataErrors: number;
  ioErrors: number;
  fileErrors: number;
  files: DamagedFile[];
}): RaisedEvent {
  const names = input.files.slice(0, 10).map((f) => `${f.disk}/${f.path}`);
  const more = input.files.length > names.length ? `, and ${input.files.length - names.length} more` : '';
  return {
    eventType: 'scrub_errors_found',
    title: 'Scrub found damaged data',
    message: `The scrub found ${plural(input.dataErrors, 'data error')}, ${plural(input.ioErrors, 'I/O error')} and ${plural(input.fileErrors, 'file error')}${names.length > 0 ? ` in ${names.join(', ')}${more}` : ''}. The damaged blocks are marked bad; repair them from parity with snapraid -e fix, then scrub the bad blocks again (snapraid -p bad scrub), and check the disk's SMART data.`,
  };
}

export function arrayDegraded(input: {
  missing: Array<{ role: string; mountpoint: string; device: string }>;
  job: string;
}): RaisedEvent {
  const list = input.missing.map((m) => `${m.role} disk ${m.mountpoint} (${m.device})`).join(', ');
  return {
    eventType: 'array_degraded',
    title: 'Array degraded: a disk is missing',
    message: `The ${input.job} did not start because ${list} ${input.missing.length === 1 ? 'is' : 'are'} not mounted. Until the disk is back, the array runs without full parity protection. Check the cable and power of the disk and that it is mounted; if it failed, replace it (appliance array replace).`,
  };
}
