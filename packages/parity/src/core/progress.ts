import type { LogRecord } from './log.ts';

/** A job's progress as the jobs API reports it. */
export interface Progress {
  percent: number;
  bytesDone: number;
  /** Estimated from the share of blocks done (SnapRAID counts blocks, and blocks may be partly used). */
  bytesTotal: number | null;
  etaSeconds: number | null;
  /** MB/s as SnapRAID measures it. */
  speedMBs: number;
}

/** `18%, 90 MB, 45 MB/s, 180 stripe/s, CPU 12%, 0:03 ETA` (the rates and ETA come once measured). */
const RUNNING = /^\s*(\d+)%, (\d+) MB(?:, (\d+) MB\/s, \d+ stripe\/s, CPU \d+%, (\d+):(\d+) ETA)?/;
/** `100% completed, 399 MB accessed in 0:00` (`46% completed, …` when the loop was interrupted). */
const COMPLETED = /^\s*(\d+)% completed, (\d+) MB accessed/;
const MB = 1_000_000;

/**
 * Follows one block loop (sync, scrub, fix, check): SnapRAID's progress lines on stdout, or the
 * `run:` records its `--gui` log carries instead.
 */
export class ProgressTracker {
  private countMax = 0;
  private last: Progress | null = null;

  /** Returns the new progress when the record moved it, else null. */
  add(record: LogRecord): Progress | null {
    if (record.kind === 'run_begin') {
      this.countMax = record.countMax;
      this.last = { percent: 0, bytesDone: 0, bytesTotal: null, etaSeconds: null, speedMBs: 0 };
      return this.last;
    }
    if (record.kind === 'run_pos') {
      const share = this.countMax > 0 ? Math.min(1, record.countPos / this.countMax) : 0;
      this.last = {
        percent: Math.max(0, Math.min(100, record.percent)),
        bytesDone: record.countSize,
        bytesTotal: share > 0 ? Math.round(record.countSize / share) : null,
        // SnapRAID reports 0 until it can estimate
        etaSeconds: record.etaSeconds > 0 ? record.etaSeconds : null,
        speedMBs: record.speedMBs,
      };
      return this.last;
    }
    if (record.kind === 'run_end' && this.last) {
      this.last = { ...this.last, percent: 100, bytesTotal: this.last.bytesDone, etaSeconds: 0 };
      return this.last;
    }
    return null;
  }

  /** A line of SnapRAID's stdout: the new progress when it is a progress line, else null. */
  addOutputLine(line: string): Progress | null {
    const done = COMPLETED.exec(line);
    if (done) {
      // SnapRAID prints this line when its block loop ends, also when a SIGINT stopped it early
      // ("46% completed, 412 MB accessed"): the loop's end, not the work's
      const percent = Math.min(100, Number(done[1]));
      const bytes = Number(done[2]) * MB;
      this.last = {
        percent,
        bytesDone: bytes,
        bytesTotal: percent === 100 ? bytes : estimateTotal(bytes, percent),
        etaSeconds: percent === 100 ? 0 : null,
        speedMBs: this.last?.speedMBs ?? 0,
      };
      return this.last;
    }
    const m = RUNNING.exec(line);
    if (!m) return null;
    const percent = Math.min(100, Number(m[1]));
    const bytesDone = Number(m[2]) * MB;
    this.last = {
      percent,
      bytesDone,
      bytesTotal: estimateTotal(bytesDone, percent),
      etaSeconds: m[4] !== undefined ? Number(m[4]) * 3600 + Number(m[5]) * 60 : null,
      speedMBs: m[3] !== undefined ? Number(m[3]) : (this.last?.speedMBs ?? 0),
    };
    return this.last;
  }

  get current(): Progress | null {
    return this.last;
  }
}

/** The whole run's bytes from the share done (null before anything is done). */
const estimateTotal = (bytesDone: number, percent: number): number | null =>
  percent > 0 ? Math.round((bytesDone * 100) / percent) : null;
