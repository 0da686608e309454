/**
 * One running job: its view, the handle its code gets, and how it ends (succeeded, failed,
 * cancelled, interrupted, blocked).
 */
import { Refusal } from '@appliance/common';
import type { JobKind } from './definition.ts';
import type { RunnerPorts } from './ports.ts';
import {
  type JobError,
  type JobHandle,
  JobBlocked,
  type JobState,
  type JobView,
  OUTPUT_LINE_CHARS,
  OUTPUT_LINES,
} from './types.ts';

/** Progress is written to the store at most this often (phases and the end always). */
export const PERSIST_PROGRESS_MS = 5_000;

export interface LiveJob {
  view: JobView;
  kind: JobKind<never, unknown>;
  controller: AbortController;
  /** Why the signal was aborted. */
  abortedBy: 'cancel' | 'shutdown' | null;
  /** The job said its work is done (`JobHandle.completed`): an abort no longer changes its end. */
  completed: boolean;
  done: Promise<JobView>;
  lastPersist: number;
  progressEvents: { update(p: Record<string, unknown>): void; finish(p: Record<string, unknown>): void };
}

export const snapshot = (live: LiveJob): JobView => ({
  ...live.view,
  output: [...live.view.output],
  params: { ...live.view.params },
});

export function persist(ports: RunnerPorts<unknown>, live: LiveJob, final = false): Promise<void> {
  live.lastPersist = ports.clock.monotonicMs();
  return ports.store.save(live.view, final);
}

export function handleOf(ports: RunnerPorts<unknown>, live: LiveJob): JobHandle {
  const { view } = live;
  const startedAt = ports.clock.monotonicMs();
  const save = () => void persist(ports, live).catch(() => undefined);
  return {
    id: view.id,
    signal: live.controller.signal,
    trigger: view.trigger,
    phase: (name, o = {}) => {
      view.phase = name;
      view.cancellable = o.cancellable ?? false;
      view.percent = null;
      view.bytesDone = null;
      view.bytesTotal = null;
      view.etaSeconds = null;
      // a phase change is always published (the progress throttle would drop a short phase)
      ports.events.publish({
        type: 'progress',
        data: {
          operationId: view.id,
          operation: view.type,
          target: view.target,
          done: false,
          progress: {
            jobId: view.id,
            phase: name,
            state: view.state,
            cancellable: view.cancellable,
            percent: null,
            bytesDone: null,
            bytesTotal: null,
            etaSeconds: null,
          },
        },
      });
      save();
    },
    progress: (p) => {
      if (p.percent !== undefined) view.percent = p.percent;
      if (p.bytesDone !== undefined) view.bytesDone = p.bytesDone;
      if (p.bytesTotal !== undefined) view.bytesTotal = p.bytesTotal;
      if (p.etaSeconds !== undefined) view.etaSeconds = p.etaSeconds;
      else if (view.percent !== null && view.percent > 0 && view.percent < 100) {
        const elapsed = (ports.clock.monotonicMs() - startedAt) / 1000;
        view.etaSeconds = Math.round((elapsed * (100 - view.percent)) / view.percent);
      }
      const { percent, bytesDone, bytesTotal, etaSeconds, ...extra } = p;
      live.progressEvents.update({
        jobId: view.id,
        phase: view.phase,
        percent: view.percent,
        bytesDone: view.bytesDone,
        bytesTotal: view.bytesTotal,
        etaSeconds: view.etaSeconds,
        ...extra,
      });
      if (ports.clock.monotonicMs() - live.lastPersist >= PERSIST_PROGRESS_MS) save();
    },
    output: (line) => {
      view.output.push(line.length > OUTPUT_LINE_CHARS ? `${line.slice(0, OUTPUT_LINE_CHARS)}…` : line);
      if (view.output.length > OUTPUT_LINES) view.output.splice(0, view.output.length - OUTPUT_LINES);
    },
    pid: (pid) => {
      void ports.store.setPid(view.id, pid).catch(() => undefined);
    },
    completed: () => {
      live.completed = true;
    },
  };
}

/** How a job ended: what `run` returned or threw, before anything is recorded. */
export interface JobEnd {
  state: JobState;
  result: unknown;
  error: JobError | null;
}

/**
 * Runs the job's code and says how it ended; records nothing (`recordEnd` does, after the kind's
 * follow-up). `release` frees the job's groups and the import gate before the job reads as ended:
 * a client that sees `succeeded` and goes on (mounts the disk, starts the next job) is never
 * refused by it.
 */
export async function execute(
  ports: RunnerPorts<unknown>,
  live: LiveJob,
  run: (job: JobHandle, params: never) => Promise<unknown>,
  release: () => void,
): Promise<JobEnd> {
  const { view, kind } = live;
  let state: JobState;
  let result: unknown = null;
  let error: JobError | null = null;
  try {
    result = (await run(handleOf(ports, live), view.params as never)) ?? null;
    const stopped = live.abortedBy !== null && !live.completed;
    state = stopped ? abortedState(live) : 'succeeded';
    if (stopped) error = abortedError(live);
  } catch (err) {
    if (err instanceof JobBlocked) {
      state = 'blocked';
      result = err.result;
      error = err.error;
    } else if (live.abortedBy && !live.completed) {
      state = abortedState(live);
      error = abortedError(live);
    } else {
      state = 'failed';
      error =
        err instanceof Refusal
          ? { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
          : { code: 'internal', message: `The ${kind.title} failed unexpectedly; see the service log.` };
      if (!(err instanceof Refusal))
        ports.logger.error('job failed', { jobId: view.id, type: view.type, error: String(err) });
    }
  }
  release();
  view.cancellable = false;
  return { state, result, error };
}

/** The job's view as it reads once ended (`end` applied to a copy; the live view is untouched). */
export function endedView(live: LiveJob, end: JobEnd, endedAt: string): JobView {
  const v = snapshot(live);
  v.state = end.state;
  v.result = end.result;
  v.error = end.error;
  v.cancellable = false;
  v.etaSeconds = end.state === 'succeeded' ? 0 : null;
  if (end.state === 'succeeded') v.percent = 100;
  v.endedAt = endedAt;
  return v;
}

/**
 * Records the end: the live view becomes `ended`, its row is written and the `done` event
 * published. The runner calls it after the kind's follow-up (`after`), so whoever sees the job
 * ended (a poll, the event) also sees what the follow-up recorded (a plan's state, a cleared
 * condition).
 */
export async function recordEnd(ports: RunnerPorts<unknown>, live: LiveJob, ended: JobView): Promise<void> {
  const { view } = live;
  view.state = ended.state;
  view.result = ended.result;
  view.error = ended.error;
  view.cancellable = ended.cancellable;
  view.etaSeconds = ended.etaSeconds;
  view.percent = ended.percent;
  view.endedAt = ended.endedAt;
  await persist(ports, live, true).catch((err: unknown) =>
    ports.logger.error('job end not recorded', { jobId: view.id, error: String(err) }),
  );
  live.progressEvents.finish({
    jobId: view.id,
    state: view.state,
    phase: view.phase,
    ...(view.error ? { code: view.error.code } : {}),
  });
}

const abortedState = (live: LiveJob): JobState =>
  live.abortedBy === 'shutdown' ? 'interrupted' : 'cancelled';

const abortedError = (live: LiveJob): JobError =>
  live.abortedBy === 'shutdown'
    ? {
        code: 'interrupted',
        message: `The service stopped while the ${live.kind.title} ran; it was stopped cleanly. Start it again.`,
      }
    : { code: 'cancelled', message: `The ${live.kind.title} was cancelled; it stopped cleanly.` };
