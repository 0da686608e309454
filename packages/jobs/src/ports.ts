/**
 * What the runner and the scheduler need from outside, as small ports. The server supplies a
 * SQLite store, the system clock, Node's timers and /proc; unit tests supply the in-memory ones of
 * `@appliance/jobs/testing`.
 */
import type { JobError, JobState, JobView } from './types.ts';

export interface Clock {
  /** Wall time: the timestamps recorded. */
  now(): Date;
  /** Milliseconds on a monotonic clock: progress throttling, ETAs, recovery deadlines. */
  monotonicMs(): number;
}

export interface Timers {
  /** Runs `fn` after the current turn (a started job's run begins after `start` answered). */
  defer(fn: () => void): void;
  sleep(ms: number): Promise<void>;
  /** Runs `fn` every `ms` until cancelled; must not keep the process alive. */
  every(ms: number, fn: () => void): { cancel(): void };
}

/** Host processes a job recorded (its tool), to stop one a killed service left behind. */
export interface Processes {
  /** An identity of the running process `pid` (its start time), or null when it is gone or a zombie. */
  startTime(pid: number): Promise<string | null>;
  /** The same, at once (recovery decides synchronously whether a hold is needed). */
  startTimeSync(pid: number): string | null;
  /** Sends a signal; false when the process is gone. */
  signal(pid: number, signal: 'SIGINT' | 'SIGKILL'): boolean;
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A progress event as the server's event stream carries it. */
export interface ProgressEvent {
  type: 'progress';
  data: {
    operationId: string;
    operation: string;
    target: string;
    done: boolean;
    progress: Record<string, unknown>;
  };
}

/** Where progress goes (`GET /events`). `progress()` gives a throttled reporter for one job. */
export interface JobEvents {
  publish(event: ProgressEvent): void;
  progress(
    operationId: string,
    operation: string,
    target: string,
  ): { update(p: Record<string, unknown>): void; finish(p: Record<string, unknown>): void };
}

/** The import lock: a job holds it while it runs. `enter` throws when an import runs. */
export interface Gate {
  enter(): () => void;
}

/** The audit entry written with a job's row (start) or alone (cancel); `A` is the actor type. */
export interface AuditEntry<A> {
  actor: A | null;
  operation: string;
  target: string;
  details: Record<string, unknown>;
}

export interface JobListQuery {
  limit: number;
  /** A job id of the previous page's last row. */
  before?: string | null;
  type?: string | null;
  state?: JobState | null;
}

/** A recorded job, with the host process it recorded last. */
export type StoredJob = JobView & { pid: number | null };

/** The job rows. Reads are synchronous (SQLite in process); writes are queued. */
export interface JobStore<A> {
  /** Records a new job and its audit entry together. */
  insert(view: JobView, audit: AuditEntry<A>): Promise<void>;
  /** Writes the live fields (state, phase, progress, output); `final` adds result, error, end and clears the pid. */
  save(view: JobView, final: boolean): Promise<void>;
  setPid(id: string, pid: number | null): Promise<void>;
  get(id: string): StoredJob | null;
  /** Newest first. */
  list(query: JobListQuery): StoredJob[];
  /** The newest job of a type (in one of `states` when given). */
  latest(type: string, states?: readonly JobState[]): StoredJob | null;
  /** The jobs in one of `states` (recovery asks for `UNFINISHED_STATES`). */
  inStates(states: readonly JobState[]): StoredJob[];
  /** Records each as `interrupted` at `endedAt` with its error, in one write. */
  markInterrupted(jobs: ReadonlyArray<{ id: string; endedAt: string; error: JobError }>): Promise<void>;
  /** Replaces an interrupted job's error and result (its recovery's outcome). */
  settle(id: string, error: JobError, result: unknown): Promise<void>;
  /**
   * Deletes the jobs in one of `states` created before `olderThan`, except the newest `keep` of
   * each type (counted over all its jobs); the runner passes `ENDED_STATES`.
   */
  prune(olderThan: Date, keep: number, states: readonly JobState[]): Promise<number>;
  /** Records an audit entry alone (a cancel). */
  audit(entry: AuditEntry<A>): Promise<void>;
}

export interface RunnerPorts<A> {
  store: JobStore<A>;
  clock: Clock;
  timers: Timers;
  processes: Processes;
  events: JobEvents;
  logger: Logger;
  /** A fresh job id. */
  newId(): string;
  /** The name a job shows as its actor (`system` for none). */
  actorName(actor: A | null): string;
  gate?: Gate;
}
