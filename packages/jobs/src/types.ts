/** What the API shows of a job, and what a job's code sees of itself (09). */

export type JobState =
  | 'queued'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'interrupted'
  | 'blocked';
export type JobTrigger = 'request' | 'schedule';

export interface JobError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A job as recorded (`GET /jobs/:id`); `P` its params, `R` its result. */
export interface JobView<P = Record<string, unknown>, R = unknown> {
  id: string;
  type: string;
  target: string;
  state: JobState;
  phase: string | null;
  percent: number | null;
  bytesDone: number | null;
  bytesTotal: number | null;
  etaSeconds: number | null;
  cancellable: boolean;
  trigger: JobTrigger;
  actor: string;
  params: P;
  /** What `run` returned (null until it succeeded, or the result a `JobBlocked` carried). */
  result: R | null;
  error: JobError | null;
  output: string[];
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

export interface JobProgress {
  percent?: number | null;
  bytesDone?: number | null;
  bytesTotal?: number | null;
  etaSeconds?: number | null;
  /** More figures for the progress event (files, rate…); not stored. */
  [extra: string]: unknown;
}

/** What a job's code sees of its job. */
export interface JobHandle {
  readonly id: string;
  /** Aborted on cancel (DELETE /jobs/:id) and at shutdown. */
  readonly signal: AbortSignal;
  readonly trigger: JobTrigger;
  /** Enters a phase; `cancellable` says whether a cancel may stop the job during it (default false). */
  phase(name: string, options?: { cancellable?: boolean }): void;
  progress(p: JobProgress): void;
  /** A line of the tool's output (the last `OUTPUT_LINES` are kept). */
  output(line: string): void;
  /** The host process the job is running now (null when it ended): stopped after a restart. */
  pid(pid: number | null): void;
  /**
   * The job's work is done (its tool completed): from now on a cancel or a shutdown stops only the
   * bookkeeping that follows, and the job ends `succeeded` with what `run` returns. A cancel that
   * arrived as the tool finished is then too late, not a cancelled job.
   */
  completed(): void;
}

/** Thrown by a job whose guard stopped it on purpose: the job ends `blocked` with this result. */
export class JobBlocked<R = unknown> extends Error {
  override name = 'JobBlocked';
  readonly result: R;
  readonly error: JobError;
  constructor(error: JobError, result: R) {
    super(error.message);
    this.error = error;
    this.result = result;
  }
}

/**
 * How a job or operation holds its groups: `exclusive` excludes everything else of the group;
 * `shared` runs beside other shared holders and excludes only exclusive ones (readers/writer).
 */
export type HoldMode = 'exclusive' | 'shared';

/** A job or a held operation that holds groups now. */
export interface Hold {
  readonly groups: readonly string[];
  readonly mode: HoldMode;
  readonly type: string;
  readonly title: string;
  readonly target: string;
  /** The job's id; null for an operation that is not a job. */
  readonly jobId: string | null;
}

export const OUTPUT_LINES = 50;
/** A kept output line is cut to this many characters. */
export const OUTPUT_LINE_CHARS = 1000;
