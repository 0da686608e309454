/**
 * A job as a flat record for a SQL table: JSON text for the structured fields (params, result,
 * error, output), 0/1 for `cancellable`. A store on SQLite writes `toRecord`, reads `fromRecord`,
 * and saves `liveFields` while the job runs (the rest once, at its end).
 */
import type { StoredJob } from './ports.ts';
import type { JobError, JobState, JobTrigger, JobView } from './types.ts';

export interface JobRecord {
  id: string;
  type: string;
  target: string;
  state: JobState;
  phase: string | null;
  percent: number | null;
  bytesDone: number | null;
  bytesTotal: number | null;
  etaSeconds: number | null;
  cancellable: number;
  trigger: JobTrigger;
  actor: string;
  params: string;
  result: string | null;
  error: string | null;
  output: string;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  pid: number | null;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** The record of a new job (no process recorded yet). */
export function toRecord(v: JobView): Omit<JobRecord, 'pid'> {
  return {
    id: v.id,
    type: v.type,
    target: v.target,
    state: v.state,
    phase: v.phase,
    percent: v.percent,
    bytesDone: v.bytesDone,
    bytesTotal: v.bytesTotal,
    etaSeconds: v.etaSeconds,
    cancellable: v.cancellable ? 1 : 0,
    trigger: v.trigger,
    actor: v.actor,
    params: JSON.stringify(v.params),
    result: json(v.result),
    error: json(v.error),
    output: JSON.stringify(v.output),
    createdAt: v.createdAt,
    startedAt: v.startedAt,
    endedAt: v.endedAt,
  };
}

export function fromRecord(r: JobRecord): StoredJob {
  return {
    id: r.id,
    type: r.type,
    target: r.target,
    state: r.state,
    phase: r.phase,
    percent: r.percent,
    bytesDone: r.bytesDone,
    bytesTotal: r.bytesTotal,
    etaSeconds: r.etaSeconds,
    cancellable: r.cancellable === 1,
    trigger: r.trigger,
    actor: r.actor,
    params: JSON.parse(r.params) as Record<string, unknown>,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
    error: r.error === null ? null : (JSON.parse(r.error) as JobError),
    output: JSON.parse(r.output) as string[],
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    pid: r.pid,
  };
}

/**
 * The fields `JobStore.save` writes: the live ones (state, phase, progress, output); at the end
 * (`final`) also the result, the error and the end, and the recorded process is forgotten.
 */
export function liveFields(v: JobView, final: boolean): Partial<JobRecord> {
  return {
    state: v.state,
    phase: v.phase,
    percent: v.percent,
    bytesDone: v.bytesDone,
    bytesTotal: v.bytesTotal,
    etaSeconds: v.etaSeconds,
    cancellable: v.cancellable ? 1 : 0,
    output: JSON.stringify(v.output),
    ...(final ? { result: json(v.result), error: json(v.error), endedAt: v.endedAt, pid: null } : {}),
  };
}

/** The fields of a job recovery records `interrupted` (at `endedAt`, with its error). */
export function interruptedFields(j: { endedAt: string; error: JobError }): Partial<JobRecord> {
  return {
    state: 'interrupted',
    cancellable: 0,
    etaSeconds: null,
    endedAt: j.endedAt,
    error: JSON.stringify(j.error),
  };
}
