/**
 * What `restic backup --json` prints (one JSON message a line on stdout): `status` lines while it
 * runs (percent, files and bytes done of the total it found so far, seconds elapsed and remaining),
 * one `summary` at the end, `error` messages for items it could not read; and what a failed restic
 * said (its `Fatal:` line on stderr).
 */

export interface BackupStatus {
  type: 'status';
  /** 0–1. */
  percentDone: number;
  totalFiles: number;
  filesDone: number;
  totalBytes: number;
  bytesDone: number;
  secondsElapsed: number;
  secondsRemaining: number | null;
  errorCount: number;
}

export interface BackupSummary {
  type: 'summary';
  snapshotId: string;
  filesNew: number;
  filesChanged: number;
  filesUnmodified: number;
  dataAdded: number;
  totalFiles: number;
  totalBytes: number;
  durationSeconds: number;
}

export interface BackupItemError {
  type: 'error';
  message: string;
  item: string | null;
}

export type BackupMessage = BackupStatus | BackupSummary | BackupItemError;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** One line of `restic backup --json` → a message, or null for anything else. */
export function parseBackupLine(line: string): BackupMessage | null {
  if (!line.startsWith('{')) return null;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (m['message_type']) {
    case 'status':
      return {
        type: 'status',
        percentDone: num(m['percent_done']),
        totalFiles: num(m['total_files']),
        filesDone: num(m['files_done']),
        totalBytes: num(m['total_bytes']),
        bytesDone: num(m['bytes_done']),
        secondsElapsed: num(m['seconds_elapsed']),
        secondsRemaining: typeof m['seconds_remaining'] === 'number' ? m['seconds_remaining'] : null,
        errorCount: num(m['error_count']),
      };
    case 'summary':
      return {
        type: 'summary',
        snapshotId: typeof m['snapshot_id'] === 'string' ? m['snapshot_id'] : '',
        filesNew: num(m['files_new']),
        filesChanged: num(m['files_changed']),
        filesUnmodified: num(m['files_unmodified']),
        dataAdded: num(m['data_added']),
        totalFiles: num(m['total_files_processed']),
        totalBytes: num(m['total_bytes_processed']),
        durationSeconds: num(m['total_duration']),
      };
    case 'error': {
      const e = m['error'];
      const text =
        typeof e === 'string'
          ? e
          : e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string'
            ? (e as { message: string }).message
            : `${typeof m['during'] === 'string' ? m['during'] : 'reading'} failed`;
      return { type: 'error', message: text, item: typeof m['item'] === 'string' ? m['item'] : null };
    }
    default:
      return null;
  }
}

/** A job's progress figures from a status line (rate in bytes per second, over the whole run). */
export function jobProgress(s: BackupStatus): {
  percent: number;
  bytesDone: number;
  bytesTotal: number;
  etaSeconds: number | null;
  files: number;
  filesTotal: number;
  rate: number | null;
} {
  return {
    percent: Math.round(s.percentDone * 1000) / 10,
    bytesDone: s.bytesDone,
    bytesTotal: s.totalBytes,
    etaSeconds: s.secondsRemaining,
    files: s.filesDone,
    filesTotal: s.totalFiles,
    rate: s.secondsElapsed > 0 ? Math.round(s.bytesDone / s.secondsElapsed) : null,
  };
}

/** A line that reads as an error (restic's words for a failure, a damaged pack or file). */
const ERRORISH =
  /error|failed|denied|no such|unable|cannot|does not match|mismatch|not referenced|corrupt|invalid/i;

/**
 * The line that says why restic failed: its last `Fatal:` line (without the prefix), else the last
 * line that reads as an error, else the last non-empty line. A `Fatal:` line that names no file
 * or pack — a summary such as "repository contains errors" (check) or "There were 2 errors"
 * (restore) — is followed by the first error line before it, which does ("Pack ID does not match,
 * want cb955148…", "ignoring error for /src/a.bin: ciphertext verification failed"), and how many
 * more there were. Secrets never reach restic's output (the password is in a file), so the line
 * can be shown to the administrator.
 */
export function pickErrorLine(lines: readonly string[]): string | null {
  const clean = lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('{'));
  const at = clean.findLastIndex((l) => l.startsWith('Fatal:'));
  if (at >= 0) {
    const fatal = clean[at]!.slice('Fatal:'.length).trim();
    if (namesSomething(fatal)) return fatal;
    // "error for tree 802310bb:" only heads the indented line that says what is wrong
    const causes = clean.slice(0, at).filter((l) => ERRORISH.test(l) && !l.endsWith(':'));
    if (causes.length === 0) return fatal;
    const more = causes.length > 1 ? ` (and ${causes.length - 1} more)` : '';
    return `${fatal}: ${causes[0]}${more}`;
  }
  const err = clean.filter((l) => ERRORISH.test(l)).at(-1);
  return err ?? clean.at(-1) ?? null;
}

/** Whether a line names a path or an object ID (a `/`, or 8+ hex digits). */
const namesSomething = (line: string): boolean => line.includes('/') || /\b[0-9a-f]{8,}\b/i.test(line);
