/**
 * The job runner (09): long operations run as jobs with a recorded row, a phase, progress, the
 * tail of their tool's output, a result or an error, and cancellation where it is safe. Exclusion
 * is by group (see holds.ts). A job holds the import lock (`gate`) while it runs. `recover()` at
 * start settles jobs a stopped service left running (recovery.ts).
 */
import { AppError, conflict, isoMillis, notFound } from '@appliance/common';
import { groupsOf, type JobImplementation, type JobKind } from './definition.ts';
import { HOLD_TITLES, Holds, jobRunning } from './holds.ts';
import { endedView, execute, type LiveJob, recordEnd, snapshot } from './live-job.ts';
import type { JobListQuery, RunnerPorts } from './ports.ts';
import { recoverUnfinished } from './recovery.ts';
import { KEEP_PER_TYPE } from './retention.ts';
import { ENDED_STATES } from './states.ts';
import type { Hold, HoldMode, JobState, JobTrigger, JobView } from './types.ts';

export interface StartOptions<A> {
  /** What the job works on, as shown (a path, a disk, a plan). */
  target: string;
  actor: A | null;
  trigger?: JobTrigger;
  /** Extra audit details (never a secret). */
  audit?: Record<string, unknown>;
  /** The audit entry's operation (default `job.<type>`). */
  auditOperation?: string;
}

/** A started job: its view as recorded (`running`), and its end. */
export interface StartedJob<P, R> {
  readonly view: JobView<P, R>;
  /** Resolves with the job once it has ended (its end recorded, `after` done). */
  readonly completed: Promise<JobView<P, R>>;
}

interface Registered {
  kind: JobKind<never, unknown>;
  impl: JobImplementation<never, unknown>;
}

export class JobRunner<A = unknown> {
  private readonly ports: RunnerPorts<A>;
  private readonly kinds = new Map<string, Registered>();
  private readonly live = new Map<string, LiveJob>();
  private readonly holds = new Holds();
  private stopping = false;

  constructor(ports: RunnerPorts<A>) {
    this.ports = ports;
  }

  /** Implements a kind (once per type): its `run`, and optionally `after` and `recover`. */
  register<P, R>(kind: JobKind<P, R>, impl: JobImplementation<P, R>): void {
    if (this.kinds.has(kind.type)) throw new Error(`job type ${kind.type} is registered twice`);
    this.kinds.set(kind.type, {
      kind: kind as unknown as JobKind<never, unknown>,
      impl: impl as unknown as JobImplementation<never, unknown>,
    });
  }

  /** The registered kind of a recorded type (recovery), or undefined. */
  registered(type: string): Registered | undefined {
    return this.kinds.get(type);
  }

  /** The job or held operation running now that keeps `groups` from being taken in `mode`, or null. */
  busy(groups: readonly string[], mode: HoldMode = 'exclusive'): Hold | null {
    return this.holds.busy(groups, mode);
  }

  /** `409 job_running` naming what runs in `groups` and keeps them from being taken in `mode`. */
  assertFree(groups: readonly string[], mode: HoldMode = 'exclusive'): void {
    const h = this.holds.busy(groups, mode);
    if (h) throw jobRunning({ ...h, cancellable: this.cancellable(h.jobId) });
  }

  /** Whether a cancel may stop the job now (its phase says so); false for a hold or an ended job. */
  cancellable(jobId: string | null): boolean {
    return jobId !== null && this.live.get(jobId)?.view.cancellable === true;
  }

  /**
   * Holds `groups` for an operation that is not a job (array setup, share data delete, import):
   * refused with `409 job_running` while a job of those groups runs, and refuses such jobs while
   * held. `mode: 'shared'` lets other shared holds of the groups run beside it. Returns the release.
   */
  hold(
    groups: readonly string[],
    what: { type: string; target: string; title?: string; mode?: HoldMode },
  ): () => void {
    const mode = what.mode ?? 'exclusive';
    this.assertFree(groups, mode);
    const title = what.title ?? HOLD_TITLES[what.type] ?? what.type;
    return this.holds.add({ groups, mode, type: what.type, title, target: what.target, jobId: null });
  }

  /**
   * Starts a job of `kind`: checks exclusion and the import lock, records the row (and the audit
   * entry), then runs it after the current turn. Resolves with the job as recorded (`running`).
   */
  async start<P, R>(kind: JobKind<P, R>, params: P, options: StartOptions<A>): Promise<StartedJob<P, R>> {
    const reg = this.kinds.get(kind.type);
    if (!reg || reg.kind !== (kind as unknown)) throw new Error(`job type ${kind.type} is not registered`);
    if (this.stopping)
      throw new AppError(
        503,
        'shutting_down',
        'The service is stopping; start the job again once it is back.',
      );
    const { ports } = this;
    const groups = groupsOf(kind, params);
    this.assertFree(groups);
    const leaveGate = ports.gate?.enter() ?? (() => undefined);
    const now = isoMillis(ports.clock.now());
    const trigger = options.trigger ?? 'request';
    const view: JobView = {
      id: ports.newId(),
      type: kind.type,
      target: options.target,
      state: 'running',
      phase: null,
      percent: null,
      bytesDone: null,
      bytesTotal: null,
      etaSeconds: null,
      cancellable: false,
      trigger,
      actor: ports.actorName(options.actor),
      params: (params ?? {}) as Record<string, unknown>,
      result: null,
      error: null,
      output: [],
      createdAt: now,
      startedAt: now,
      endedAt: null,
    };
    // held synchronously with the check: nothing slips in between
    const unhold = this.holds.add({
      groups,
      mode: 'exclusive',
      type: kind.type,
      title: kind.title,
      target: view.target,
      jobId: view.id,
    });
    try {
      await ports.store.insert(view, {
        actor: options.actor,
        operation: options.auditOperation ?? `job.${kind.type}`,
        target: view.target,
        details: { jobId: view.id, trigger, ...view.params, ...options.audit },
      });
    } catch (err) {
      unhold();
      leaveGate();
      throw err;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      unhold();
      leaveGate();
    };
    const live: LiveJob = {
      view,
      kind: reg.kind,
      controller: new AbortController(),
      abortedBy: null,
      completed: false,
      done: Promise.resolve(view),
      lastPersist: ports.clock.monotonicMs(),
      progressEvents: ports.events.progress(view.id, kind.type, view.target),
    };
    this.live.set(view.id, live);
    live.done = new Promise<JobView>((resolve) => {
      ports.timers.defer(() => {
        const ports = this.ports as RunnerPorts<unknown>;
        void execute(ports, live, reg.impl.run, release)
          .then(async (end) => {
            const ended = endedView(live, end, isoMillis(ports.clock.now()));
            await this.after(reg.impl, ended);
            await recordEnd(ports, live, ended);
          })
          .finally(() => {
            release();
            this.live.delete(view.id);
          })
          .then(() => resolve(snapshot(live)));
      });
    });
    return { view: snapshot(live) as JobView<P, R>, completed: live.done as Promise<JobView<P, R>> };
  }

  /** The kind's follow-up, on the job as it will read once ended; before that end is recorded. */
  private async after(impl: JobImplementation<never, unknown>, ended: JobView): Promise<void> {
    try {
      await impl.after?.(ended as never);
    } catch (err) {
      this.ports.logger.error('job follow-up failed', { jobId: ended.id, error: String(err) });
    }
  }

  get(id: string): JobView | null {
    const live = this.live.get(id);
    if (live) return snapshot(live);
    return withoutPid(this.ports.store.get(id));
  }

  /** A job of `kind`, typed, or null (also null when `id` is a job of another kind). */
  getOf<P, R>(kind: JobKind<P, R>, id: string): JobView<P, R> | null {
    const v = this.get(id);
    return v && v.type === kind.type ? (v as JobView<P, R>) : null;
  }

  /** Newest first; `before` is a job id of the previous page's last row. */
  list(query: JobListQuery): JobView[] {
    return this.ports.store.list(query).map((r) => this.get(r.id) ?? withoutPid(r)!);
  }

  /** The newest job of `kind` (finished or not, or in one of `states`), or null. */
  latest<P, R>(kind: JobKind<P, R>, states?: readonly JobState[]): JobView<P, R> | null {
    const row = this.ports.store.latest(kind.type, states);
    return row ? ((this.get(row.id) ?? withoutPid(row)) as JobView<P, R>) : null;
  }

  /** Running jobs of this runner. */
  running(): JobView[] {
    // a job whose end is recorded is no longer running, though it leaves the map a moment later
    return [...this.live.values()].filter((l) => l.view.endedAt === null).map(snapshot);
  }

  /** Running jobs of `kind`, typed. */
  runningOf<P, R>(kind: JobKind<P, R>): JobView<P, R>[] {
    return this.running().filter((j) => j.type === kind.type) as JobView<P, R>[];
  }

  /** Resolves when the job has ended (its row written). */
  async wait(id: string): Promise<JobView> {
    const live = this.live.get(id);
    if (live) return live.done;
    const v = this.get(id);
    if (!v) throw notFound('job_not_found', `No job ${id}.`);
    return v;
  }

  /** Cancels where that is safe (the current phase says so). */
  async cancel(id: string, actor: A | null): Promise<JobView> {
    const live = this.live.get(id);
    if (!live) {
      const v = this.get(id);
      if (!v) throw notFound('job_not_found', `No job ${id}: list the jobs with GET /api/v1/jobs.`, { id });
      throw conflict(
        'job_not_running',
        `The job ${id} has already ended (${v.state}); there is nothing to cancel.`,
        {
          id,
          state: v.state,
        },
      );
    }
    if (!live.view.cancellable) {
      throw conflict(
        'job_not_cancellable',
        `The ${live.kind.title} cannot be cancelled during its "${live.view.phase ?? 'start'}" phase without leaving the array in between; wait for it to finish.`,
        { id, phase: live.view.phase },
      );
    }
    if (!live.abortedBy) {
      live.abortedBy = 'cancel';
      await this.ports.store.audit({
        actor,
        operation: 'job.cancel',
        target: live.view.target,
        details: { jobId: id, type: live.view.type, phase: live.view.phase },
      });
      live.controller.abort();
    }
    return snapshot(live);
  }

  /**
   * At start, before any job may run: jobs left `running`/`queued` by a stopped service become
   * `interrupted`; a tool such a job recorded that still runs is stopped (SIGINT, SIGKILL after two
   * minutes), then the kind's own `recover` runs, holding the job's groups until both are done.
   * Resolves once the rows are recorded; the stopping and recovering go on in the background
   * (`settled` resolves when they are done).
   */
  async recover(): Promise<{ settled: Promise<void> }> {
    return recoverUnfinished(this.ports as RunnerPorts<unknown>, {
      registered: (type) => this.kinds.get(type),
      hold: (groups, target) => this.hold(groups, { type: 'job.recovery', target }),
    });
  }

  /** At shutdown: running jobs are stopped cleanly and recorded `interrupted`. */
  async stop(): Promise<void> {
    this.stopping = true;
    const all = [...this.live.values()];
    for (const live of all) {
      live.abortedBy ??= 'shutdown';
      live.controller.abort();
    }
    await Promise.all(all.map((l) => l.done));
  }

  /** Deletes ended jobs older than `olderThan`, keeping the newest `keep` of each type. */
  prune(olderThan: Date, keep = KEEP_PER_TYPE): Promise<number> {
    return this.ports.store.prune(olderThan, keep, ENDED_STATES);
  }
}

function withoutPid(row: (JobView & { pid?: number | null }) | null): JobView | null {
  if (!row) return null;
  const { pid: _pid, ...view } = row;
  return view;
}
