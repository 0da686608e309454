/**
 * A job kind: its type, title and groups, typed by its params `P` and result `R`. Declared once
 * (a constant a caller imports), implemented once (`runner.register(kind, implementation)`), and
 * started by the kind (`runner.start(kind, params, options)`), so params and results are typed
 * end to end.
 */
import type { JobHandle, JobView } from './types.ts';

export interface JobKind<P, R> {
  readonly type: string;
  /** Human name used in messages ("the parity sync"). */
  readonly title: string;
  /**
   * Jobs and held operations sharing a group never run together. A function gives the groups of
   * one run from its params (a backup's `backup:<destination label>`: one run per destination).
   */
  readonly groups: readonly string[] | ((params: P) => readonly string[]);
  /** Phantom: carries `P` and `R` for the type checker; never set. */
  readonly __types?: { params: P; result: R };
}

/** Declares a job kind. */
export function defineJob<P, R>(kind: {
  type: string;
  title: string;
  groups: readonly string[] | ((params: P) => readonly string[]);
}): JobKind<P, R> {
  return { type: kind.type, title: kind.title, groups: kind.groups };
}

export interface JobImplementation<P, R> {
  /** Returns the result (null: nothing to report, e.g. a run that stopped on cancel). */
  run(job: JobHandle, params: P): Promise<R | null>;
  /** After the job ended, whatever its state (events, state rows). Errors are logged. */
  after?(view: JobView<P, R>): void | Promise<void>;
  /**
   * After a restart, for a job of this kind that the stopped service left running: put its work
   * back into a consistent state and say what to do. Runs once the job is recorded `interrupted`
   * and any leftover tool it recorded is gone, while its groups are held. What it returns replaces
   * the job's generic `error.message` (and sets `result`); a throw is logged and the message says
   * the recovery failed.
   */
  recover?(view: JobView<P, R>): Promise<{ message: string; result?: R; details?: Record<string, unknown> }>;
}

/** The params type of a kind. */
export type ParamsOf<K> = K extends JobKind<infer P, unknown> ? P : never;
/** The result type of a kind. */
export type ResultOf<K> = K extends JobKind<unknown, infer R> ? R : never;

/** The groups of one run of `kind`. */
export function groupsOf<P>(kind: JobKind<P, unknown>, params: P): readonly string[] {
  return typeof kind.groups === 'function' ? kind.groups(params) : kind.groups;
}
