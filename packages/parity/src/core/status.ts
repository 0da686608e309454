import type { LogRecord } from './log.ts';

/** The facts of `snapraid status` the service keeps (read after every job, never by a GET). */
export interface ArrayStatus {
  /** When the least recently scrubbed (or synced) block was last checked; null: nothing synced. */
  oldestScrubAt: Date | null;
  /** Percent of the blocks never scrubbed since their sync. */
  unscrubbedPercent: number;
  /** Files with a zero sub-second timestamp (a `snapraid touch` first makes move detection work). */
  zeroSubsecondFiles: number;
  /** Whether SnapRAID itself says a sync is pending (an interrupted sync). */
  unsynced: boolean;
  /** Blocks marked bad by an earlier scrub (fixed by `snapraid -e fix`). */
  badBlocks: number;
  filesCount: number;
  parityBytes: number | null;
}

/** Parses the records of a `snapraid status` run. */
export function summarizeStatus(records: Iterable<LogRecord>): ArrayStatus {
  let oldest: number | null = null;
  let total = 0;
  let unscrubbed = 0;
  const out: ArrayStatus = {
    oldestScrubAt: null,
    unscrubbedPercent: 0,
    zeroSubsecondFiles: 0,
    unsynced: false,
    badBlocks: 0,
    filesCount: 0,
    parityBytes: null,
  };
  for (const r of records) {
    if (r.kind === 'info_time') {
      if (r.blocks <= 0) continue;
      total += r.blocks;
      if (r.what !== 'scrubbed') unscrubbed += r.blocks;
      if (r.unixTime > 0 && (oldest === null || r.unixTime < oldest)) oldest = r.unixTime;
    } else if (r.kind === 'summary') {
      const v = r.values;
      if (r.key === 'zerosubsecond_file_count') out.zeroSubsecondFiles = Number(v[0]) || 0;
      else if (r.key === 'has_unsynced') out.unsynced = v[0] === '1';
      else if (r.key === 'has_bad') {
        // has_bad:<0|1>[:<first>:<last>] — the range; the count is approximated by it
        if (v[0] === '1') out.badBlocks = Math.max(1, (Number(v[2]) || 0) - (Number(v[1]) || 0) + 1);
      } else if (r.key === 'file_count') out.filesCount = Number(v[0]) || 0;
      else if (r.key === 'parity_size') out.parityBytes = Number(v[0]) || 0;
    }
  }
  out.oldestScrubAt = oldest === null ? null : new Date(oldest * 1000);
  out.unscrubbedPercent = total > 0 ? Math.round((unscrubbed / total) * 1000) / 10 : 0;
  return out;
}
