/**
 * rsync's `--info=progress2` lines (one for the whole transfer, rewritten with `\r`):
 * `  12,000,000  20%  190.21MB/s    0:00:03 (xfr#6, to-chk=24/31)`. With `--no-inc-recursive` the
 * file list is complete before the copy starts, so the percent covers the whole transfer.
 */
export interface CopyProgress {
  percent: number;
  bytesDone: number;
  /** Estimated from bytes and percent (rsync does not print the total). */
  bytesTotal: number | null;
  /** rsync's remaining-time estimate while a file is in flight (it prints the elapsed time at file ends). */
  etaSeconds: number | null;
  /** Files still to check of the total, when rsync says. */
  filesLeft: number | null;
  filesTotal: number | null;
}

const LINE =
  /^\s*([\d,]+)\s+(\d{1,3})%\s+\S+\/s\s+(\d+):(\d{2}):(\d{2})(?:\s+\(xfr#\d+,\s+(?:to|ir)-chk=(\d+)\/(\d+)\))?\s*$/;

/** One line of rsync's output: the progress it states, or null for anything else. */
export function parseRsyncProgress(line: string): CopyProgress | null {
  const m = LINE.exec(line);
  if (!m) return null;
  const bytesDone = Number(m[1]!.replace(/,/g, ''));
  // rsync's percent counts every name of a hard link, which it copies once: "nothing left to
  // check" is the end of the copy whatever the percent says
  const finished = m[6] !== undefined && Number(m[6]) === 0;
  const percent = finished ? 100 : Math.min(100, Number(m[2]));
  const time = Number(m[3]) * 3600 + Number(m[4]) * 60 + Number(m[5]);
  const atFileEnd = m[6] !== undefined;
  return {
    percent,
    bytesDone,
    bytesTotal: finished ? bytesDone : percent > 0 ? Math.round((bytesDone * 100) / percent) : null,
    etaSeconds: atFileEnd || percent >= 100 ? null : time,
    filesLeft: m[6] !== undefined ? Number(m[6]) : null,
    filesTotal: m[7] !== undefined ? Number(m[7]) : null,
  };
}

/** rsync's own error lines (`rsync: …`, `rsync error: …`): the last one says why it failed. */
export const isRsyncError = (line: string): boolean => /^rsync(:| error:)/.test(line);
