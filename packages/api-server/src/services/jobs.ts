/**
 * The one job runner of the service (09): long operations (parity sync and scrub, disk jobs,
 * backups) run as jobs with a row in `jobs`, a phase, progress, the tail of their tool's output, a
 * result or an error, and cancellation where it is safe. Exclusion is declared per job type as
 * groups (`array`, `backup:<label>`): a job or a held operation (array setup, share data delete)
 * of a group refuses any other of that group with `409 job_running` naming it. A hold is
 * `exclusive` (the default: jobs, array setup) or `shared`: shared holds of a group run together
 * and exclude only the exclusive ones (share data deletes of different shares run at once, while
 * no parity sync, scrub or disk job may start under any of them). A job holds the
 * import lock while it runs, so a config import cannot start under it. At start, rows still
 * `running` or `queued` become `interrupted`, and a tool process a killed service left behind is
 * stopped before the next job of its group may start.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import { AppError, conflict, isoMillis, notFound } from '@appliance/common';
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { jobs } from '../db/schema.ts';
import type { Actor } from './audit.ts';

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

/** A job as the API shows it (`GET /jobs/:id`). */
export interface JobView {
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
  params: Record<string, unknown>;
  result: unknown;
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
  /** Enters a phase; `cancellable` says whether DELETE may stop the job during it (default false). */
  phase(name: string, options?: { cancellable?: boolean }): void;
  progress(p: JobProgress): void;
  /** A line of the tool's output (the last `OUTPUT_LINES` are kept). */
  output(line: string): void;
  /** The host process the job is running now (null when it ended). */
  pid(pid: number | null): void;
  /**
   * The job's work is done (its tool completed): from now on a cancel or a shutdown stops only the
   * bookkeeping that follows, and the job ends `succeeded` with what `run` returns. A cancel that
   * arrived as the tool finished is then too late, not a cancelled job.
   */
  completed(): void;
}

/** Thrown by a job whose guard stopped it on purpose: the job ends `blocked` with this result. */
export class JobBlocked extends Error {
  override name = 'JobBlocked';
  readonly result: unknown;
  readonly error: JobError;
  constructor(error: JobError, result: unknown) {
    super(error.message);
    this.error = error;
    this.result = result;
  }
}

export interface JobDefinition<P = Record<string, unknown>> {
  type: string;
  /** Human name used in messages ("the parity sync"). */
  title: string;
  /**
   * Jobs and held operations sharing a group never run together. A function gives the groups of
   * one run from its params (a backup's `backup:<destination label>`: one run per destination).
   */
  groups: readonly string[] | ((params: P) => readonly string[]);
  run(job: JobHandle, params: P): Promise<unknown>;
  /** After the job ended, whatever its state (events, state rows). Errors are logged. */
  after?(view: JobView): void | Promise<void>;
  /**
   * After a restart, for a job of this type that the stopped service left running: put its work
   * back into a consistent state (a disk job leaves its slot on exactly one disk) and say what to
   * do. Runs once the job is recorded `interrupted` and any leftover tool it recorded is gone,
   * while its groups are held (so nothing of those groups starts meanwhile). What it returns
   * replaces the job's generic `error.message` (and sets `result`); a throw is logged and the
   * message says the recovery failed.
   */
  recover?(view: JobView): Promise<{ message: string; result?: unknown; details?: Record<string, unknown> }>;
}

export const OUTPUT_LINES = 50;
const PERSIST_PROGRESS_MS = 5_000;
const RECOVERY_WAIT_MS = 120_000;

interface LiveJob {
  view: JobView;
  def: JobDefinition<never>;
  controller: AbortController;
  /** Why the signal was aborted. */
  abortedBy: 'cancel' | 'shutdown' | null;
  /** The job said its work is done (`JobHandle.completed`): an abort no longer changes its end. */
  completed: boolean;
  done: Promise<JobView>;
  lastPersist: number;
  progressEvents: { update(p: Record<string, unknown>): void; finish(p: Record<string, unknown>): void };
}

/**
 * How a job or operation holds its groups: `exclusive` excludes everything else of the group;
 * `shared` runs beside other shared holders and excludes only exclusive ones (readers/writer).
 */
export type HoldMode = 'exclusive' | 'shared';

interface Hold {
  groups: readonly string[];
  mode: HoldMode;
  type: string;
  title: string;
  target: string;
  jobId: string | null;
}

/** Default titles of the operations that hold a group without being jobs. */
const HOLD_TITLES: Record<string, string> = {
  'array.create': 'the array setup',
  'share_data.delete': 'a share data delete',
  'config.import': 'the configuration import',
  'job.recovery': 'settling a job a restart interrupted (stopping its tool, putting its work back in order)',
};

export class JobRunner {
  private readonly ctx: AppContext;
  private readonly defs = new Map<string, JobDefinition<never>>();
  private readonly live = new Map<string, LiveJob>();
  private readonly holds = new Set<Hold>();
  private stopping = false;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  register<P>(def: JobDefinition<P>): void {
    if (this.defs.has(def.type)) throw new Error(`job type ${def.type} is registered twice`);
    this.defs.set(def.type, def as JobDefinition<never>);
  }

  /**
   * The job or held operation running now that keeps `groups` from being taken in `mode`, or null:
   * any holder of one of them for an exclusive taker, an exclusive holder for a shared taker.
   */
  busy(groups: readonly string[], mode: HoldMode = 'exclusive'): Hold | null {
    for (const h of this.holds) {
      if (mode === 'shared' && h.mode === 'shared') continue;
      if (h.groups.some((g) => groups.includes(g))) return h;
    }
    return null;
  }

  /** `409 job_running` naming what runs in `groups` and keeps them from being taken in `mode`. */
  assertFree(groups: readonly string[], mode: HoldMode = 'exclusive'): void {
    const h = this.busy(groups, mode);
    if (h) throw jobRunning({ ...h, cancellable: this.cancellable(h.jobId) });
  }

  /** Whether DELETE /jobs/:id may stop the job now (its phase says so); false for a hold or an ended job. */
  cancellable(jobId: string | null): boolean {
    return jobId !== null && this.live.get(jobId)?.view.cancellable === true;
  }

  /**
   * Holds `groups` for an operation that is not a job (array setup, share data delete, import):
   * refused with `409 job_running` while a job of those groups runs, and refuses such jobs while
   * held. `mode: 'shared'` lets other shared holds of the groups run beside it (default
   * `exclusive`). Returns the release.
   */
  hold(
    groups: readonly string[],
    what: { type: string; target: string; title?: string; mode?: HoldMode },
  ): () => void {
    const mode = what.mode ?? 'exclusive';
    this.assertFree(groups, mode);
    const h: Hold = {
      groups,
      mode,
      type: what.type,
      title: what.title ?? HOLD_TITLES[what.type] ?? what.type,
      target: what.target,
      jobId: null,
    };
    this.holds.add(h);
    return () => this.holds.delete(h);
  }

  /**
   * Starts a job: checks exclusion and the import lock, records the row (and the audit row of a
   * request), then runs it in the background. Resolves with the job as recorded (`running`).
   */
  async start(
    type: string,
    options: {
      target: string;
      params?: Record<string, unknown>;
      actor: Actor | null;
      trigger?: JobTrigger;
      /** Extra audit details (never a secret). */
      audit?: Record<string, unknown>;
      /** The audit row's operation (default `job.<type>`). */
      auditOperation?: string;
    },
  ): Promise<JobView> {
    const def = this.defs.get(type);
    if (!def) throw new Error(`unknown job type ${type}`);
    if (this.stopping)
      throw new AppError(
        503,
        'shutting_down',
        'The service is stopping; start the job again once it is back.',
      );
    const groups = groupsOf(def, options.params ?? {});
    this.assertFree(groups);
    const leaveGate = this.ctx.gate.enter(); // 409 import_in_progress during an import
    const now = isoMillis(this.ctx.clock.now());
    const trigger = options.trigger ?? 'request';
    const view: JobView = {
      id: this.ctx.random.uuid(),
      type,
      target: options.target,
      state: 'running',
      phase: null,
      percent: null,
      bytesDone: null,
      bytesTotal: null,
      etaSeconds: null,
      cancellable: false,
      trigger,
      actor: options.actor ? (options.actor.kind === 'local' ? 'local' : options.actor.username) : 'system',
      params: options.params ?? {},
      result: null,
      error: null,
      output: [],
      createdAt: now,
      startedAt: now,
      endedAt: null,
    };
    const hold: Hold = {
      groups,
      mode: 'exclusive',
      type,
      title: def.title,
      target: view.target,
      jobId: view.id,
    };
    this.holds.add(hold); // synchronously, with the check: nothing slips in between
    try {
      await this.ctx.writes.run((db) => {
        db.insert(jobs).values(toRow(view)).run();
        this.ctx.audit.record(db, options.actor, {
          operation: options.auditOperation ?? `job.${type}`,
          target: view.target,
          details: { jobId: view.id, trigger, ...view.params, ...options.audit },
        });
      });
    } catch (err) {
      this.holds.delete(hold);
      leaveGate();
      throw err;
    }
    const controller = new AbortController();
    const live: LiveJob = {
      view,
      def,
      controller,
      abortedBy: null,
      completed: false,
      done: Promise.resolve(view),
      lastPersist: Date.now(),
      progressEvents: this.ctx.events.progress(view.id, type, view.target),
    };
    this.live.set(view.id, live);
    let released = false;
    // the groups and the import gate are free before the job reads as ended: a client that sees
    // `succeeded` and goes on (mounts the disk, starts the next job) is never refused by it
    const release = () => {
      if (released) return;
      released = true;
      this.holds.delete(hold);
      leaveGate();
    };
    live.done = new Promise<JobView>((resolve) => {
      setImmediate(() => {
        void this.execute(live, release)
          .finally(() => {
            release();
            this.live.delete(view.id);
          })
          .then(() => resolve(this.snapshot(live)));
      });
    });
    return this.snapshot(live);
  }

  private handle(live: LiveJob): JobHandle {
    const { view } = live;
    const startedAt = Date.now();
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
        this.ctx.events.publish({
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
        void this.persist(live);
      },
      progress: (p) => {
        if (p.percent !== undefined) view.percent = p.percent;
        if (p.bytesDone !== undefined) view.bytesDone = p.bytesDone;
        if (p.bytesTotal !== undefined) view.bytesTotal = p.bytesTotal;
        if (p.etaSeconds !== undefined) view.etaSeconds = p.etaSeconds;
        else if (view.percent !== null && view.percent > 0 && view.percent < 100) {
          const elapsed = (Date.now() - startedAt) / 1000;
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
        if (Date.now() - live.lastPersist >= PERSIST_PROGRESS_MS) void this.persist(live);
      },
      output: (line) => {
        view.output.push(line.length > 1000 ? `${line.slice(0, 1000)}…` : line);
        if (view.output.length > OUTPUT_LINES) view.output.splice(0, view.output.length - OUTPUT_LINES);
      },
      pid: (pid) => {
        void this.ctx.writes
          .run((db) => db.update(jobs).set({ pid }).where(eq(jobs.id, view.id)).run())
          .catch(() => undefined);
      },
      completed: () => {
        live.completed = true;
      },
    };
  }

  private async execute(live: LiveJob, release: () => void): Promise<void> {
    const { view, def } = live;
    let state: JobState;
    let result: unknown = null;
    let error: JobError | null = null;
    try {
      result = (await def.run(this.handle(live), view.params as never)) ?? null;
      const stopped = live.abortedBy !== null && !live.completed;
      state = stopped ? this.abortedState(live) : 'succeeded';
      if (stopped) error = this.abortedError(live);
    } catch (err) {
      if (err instanceof JobBlocked) {
        state = 'blocked';
        result = err.result;
        error = err.error;
      } else if (live.abortedBy && !live.completed) {
        state = this.abortedState(live);
        error = this.abortedError(live);
      } else {
        state = 'failed';
        error =
          err instanceof AppError
            ? { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
            : { code: 'internal', message: `The ${def.title} failed unexpectedly; see the service log.` };
        if (!(err instanceof AppError))
          this.ctx.logger.error('job failed', { jobId: view.id, type: view.type, error: String(err) });
      }
    }
    release();
    view.state = state;
    view.result = result;
    view.error = error;
    view.cancellable = false;
    view.etaSeconds = state === 'succeeded' ? 0 : null;
    if (state === 'succeeded') view.percent = 100;
    view.endedAt = isoMillis(this.ctx.clock.now());
    await this.persist(live, true).catch((err: unknown) =>
      this.ctx.logger.error('job end not recorded', { jobId: view.id, error: String(err) }),
    );
    live.progressEvents.finish({
      jobId: view.id,
      state,
      phase: view.phase,
      ...(error ? { code: error.code } : {}),
    });
    try {
      await def.after?.(this.snapshot(live));
    } catch (err) {
      this.ctx.logger.error('job follow-up failed', { jobId: view.id, error: String(err) });
    }
  }

  private abortedState(live: LiveJob): JobState {
    return live.abortedBy === 'shutdown' ? 'interrupted' : 'cancelled';
  }

  private abortedError(live: LiveJob): JobError {
    return live.abortedBy === 'shutdown'
      ? {
          code: 'interrupted',
          message: `The service stopped while the ${live.def.title} ran; it was stopped cleanly. Start it again.`,
        }
      : { code: 'cancelled', message: `The ${live.def.title} was cancelled; it stopped cleanly.` };
  }

  private async persist(live: LiveJob, final = false): Promise<void> {
    live.lastPersist = Date.now();
    const v = live.view;
    const values = {
      state: v.state,
      phase: v.phase,
      percent: v.percent,
      bytesDone: v.bytesDone,
      bytesTotal: v.bytesTotal,
      etaSeconds: v.etaSeconds,
      cancellable: v.cancellable ? 1 : 0,
      output: JSON.stringify(v.output),
      ...(final
        ? {
            result: v.result === null ? null : JSON.stringify(v.result),
            error: v.error === null ? null : JSON.stringify(v.error),
            endedAt: v.endedAt,
            pid: null,
          }
        : {}),
    };
    await this.ctx.writes.run((db) => db.update(jobs).set(values).where(eq(jobs.id, v.id)).run());
  }

  private snapshot(live: LiveJob): JobView {
    return { ...live.view, output: [...live.view.output], params: { ...live.view.params } };
  }

  get(id: string): JobView | null {
    const live = this.live.get(id);
    if (live) return this.snapshot(live);
    const row = this.ctx.db.select().from(jobs).where(eq(jobs.id, id)).get();
    return row ? fromRow(row) : null;
  }

  /** Newest first; `before` is a job id of the previous page's last row. */
  list(options: { limit: number; before?: string | null; type?: string | null; state?: JobState | null }) {
    const conds = [];
    if (options.type) conds.push(eq(jobs.type, options.type));
    if (options.state) conds.push(eq(jobs.state, options.state));
    if (options.before) {
      const b = this.ctx.db.select().from(jobs).where(eq(jobs.id, options.before)).get();
      if (b)
        conds.push(
          sql`(${jobs.createdAt} < ${b.createdAt} or (${jobs.createdAt} = ${b.createdAt} and ${jobs.id} < ${b.id}))`,
        );
    }
    const rows = this.ctx.db
      .select()
      .from(jobs)
      .where(conds.length ? and(...conds) : undefined)
      .orderBy(desc(jobs.createdAt), desc(jobs.id))
      .limit(options.limit)
      .all();
    return rows.map((r) => this.get(r.id) ?? fromRow(r));
  }

  /** The newest job of a type (finished or not), or null. */
  latest(type: string, states?: readonly JobState[]): JobView | null {
    const row = this.ctx.db
      .select()
      .from(jobs)
      .where(states ? and(eq(jobs.type, type), inArray(jobs.state, [...states])) : eq(jobs.type, type))
      .orderBy(desc(jobs.createdAt), desc(jobs.id))
      .limit(1)
      .get();
    return row ? (this.get(row.id) ?? fromRow(row)) : null;
  }

  /** Running jobs of this server. */
  running(): JobView[] {
    return [...this.live.values()].map((l) => this.snapshot(l));
  }

  /** Resolves when the job has ended (its row written). */
  async wait(id: string): Promise<JobView> {
    const live = this.live.get(id);
    if (live) return live.done;
    const v = this.get(id);
    if (!v) throw notFound('job_not_found', `No job ${id}.`);
    return v;
  }

  /** `DELETE /jobs/:id`: cancels where that is safe (the current phase says so). */
  async cancel(id: string, actor: Actor | null): Promise<JobView> {
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
        `The ${live.def.title} cannot be cancelled during its "${live.view.phase ?? 'start'}" phase without leaving the array in between; wait for it to finish.`,
        { id, phase: live.view.phase },
      );
    }
    if (!live.abortedBy) {
      live.abortedBy = 'cancel';
      await this.ctx.writes.run((db) =>
        this.ctx.audit.record(db, actor, {
          operation: 'job.cancel',
          target: live.view.target,
          details: { jobId: id, type: live.view.type, phase: live.view.phase },
        }),
      );
      live.controller.abort();
    }
    return this.snapshot(live);
  }

  /**
   * At start, before any job may run: rows left `running`/`queued` by a stopped service become
   * `interrupted`; a tool process such a job recorded that still runs (a killed service) is asked
   * to stop (SIGINT; SIGKILL after two minutes), then the definition's own `recover` runs (a disk
   * job settles its slot), holding the job's groups until both are done.
   */
  async recover(): Promise<void> {
    const stale = this.ctx.db
      .select()
      .from(jobs)
      .where(inArray(jobs.state, ['running', 'queued']))
      .all();
    if (stale.length === 0) return;
    const at = isoMillis(this.ctx.clock.now());
    await this.ctx.writes.run((db) => {
      for (const row of stale) {
        const def = this.defs.get(row.type);
        const title = def?.title ?? row.type;
        db.update(jobs)
          .set({
            state: 'interrupted',
            cancellable: 0,
            etaSeconds: null,
            endedAt: at,
            error: JSON.stringify({
              code: 'interrupted',
              message: `The service stopped while the ${title} ran${row.phase ? ` (phase "${row.phase}")` : ''}; the job did not finish. Start it again.`,
            }),
          })
          .where(eq(jobs.id, row.id))
          .run();
      }
    });
    for (const row of stale) {
      this.ctx.logger.warn('job interrupted by a restart', {
        jobId: row.id,
        type: row.type,
        phase: row.phase,
      });
      const def = this.defs.get(row.type);
      // a recorded tool that is already gone needs no stopping
      const leftover = row.pid !== null && processStartTimeSync(row.pid) !== null ? row.pid : null;
      if (leftover === null && !def?.recover) continue;
      // held at once, before anything can start a job of these groups; released when the tool is
      // gone and the job's own recovery has run
      const groups = def ? groupsOf(def, JSON.parse(row.params) as Record<string, unknown>) : ['array'];
      const release = this.hold(groups, { type: 'job.recovery', target: row.id });
      void (async () => {
        if (leftover !== null) await this.stopLeftover(leftover, row.id);
        if (def?.recover) await this.runRecovery(def, row.id);
      })().finally(release);
    }
  }

  /** A definition's own recovery of an interrupted job; its message becomes the job's error. */
  private async runRecovery(def: JobDefinition<never>, id: string): Promise<void> {
    const view = this.get(id);
    if (!view || !def.recover) return;
    let error: JobError;
    let result: unknown = view.result;
    try {
      const r = await def.recover(view);
      error = { code: 'interrupted', message: r.message, ...(r.details ? { details: r.details } : {}) };
      if (r.result !== undefined) result = r.result;
    } catch (err) {
      this.ctx.logger.error('job recovery failed', { jobId: id, type: view.type, error: String(err) });
      error = {
        code: 'interrupted',
        message: `The service stopped while the ${def.title} ran${view.phase ? ` (phase "${view.phase}")` : ''}, and putting things back failed (${err instanceof Error ? err.message : String(err)}); see the service log, then restart the service to try again.`,
      };
    }
    await this.ctx.writes.run((db) =>
      db
        .update(jobs)
        .set({ error: JSON.stringify(error), result: result === null ? null : JSON.stringify(result) })
        .where(eq(jobs.id, id))
        .run(),
    );
  }

  private async stopLeftover(pid: number, jobId: string): Promise<void> {
    const startedBefore = await processStartTime(pid);
    if (startedBefore === null) return;
    try {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        return;
      }
      const deadline = Date.now() + RECOVERY_WAIT_MS;
      while (Date.now() < deadline) {
        if ((await processStartTime(pid)) !== startedBefore) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    } finally {
      this.ctx.logger.info('stopped the tool an interrupted job left running', { jobId, pid });
    }
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
  async prune(olderThan: Date, keep = 20): Promise<number> {
    return this.ctx.writes.run((db) => {
      const res = db
        .delete(jobs)
        .where(
          and(
            lt(jobs.createdAt, isoMillis(olderThan)),
            inArray(jobs.state, ['succeeded', 'failed', 'cancelled', 'interrupted', 'blocked']),
            sql`${jobs.id} not in (select id from (select id, row_number() over (partition by type order by created_at desc) as n from jobs) where n <= ${keep})`,
          ),
        )
        .run();
      return res.changes;
    });
  }
}

/** The groups of one run of `def` (a fixed list, or computed from the run's params). */
function groupsOf(def: JobDefinition<never>, params: Record<string, unknown>): readonly string[] {
  return typeof def.groups === 'function' ? def.groups(params as never) : def.groups;
}

/**
 * `409 job_running`, naming what runs and how to follow it; a cancel is suggested only when the
 * job can be cancelled now (`cancellable`: its current phase allows DELETE /jobs/:id).
 */
export function jobRunning(h: {
  type: string;
  title: string;
  target: string;
  jobId: string | null;
  cancellable?: boolean;
}): AppError {
  const follow = !h.jobId
    ? ' Wait for it to finish, then try again.'
    : h.cancellable
      ? ` Follow it with GET /api/v1/jobs/${h.jobId}, or cancel it with DELETE /api/v1/jobs/${h.jobId}; then try again.`
      : ` Follow it with GET /api/v1/jobs/${h.jobId} and try again once it has finished (it cannot be cancelled in its current phase).`;
  return conflict('job_running', `${capitalize(h.title)} is running (${h.target}).${follow}`, {
    ...(h.jobId ? { jobId: h.jobId } : {}),
    type: h.type,
    target: h.target,
  });
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The start time of a process (field 22 of /proc/<pid>/stat), or null when it is gone. */
async function processStartTime(pid: number): Promise<string | null> {
  try {
    return startTimeOf(await fs.readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** The start time of `pid` while it runs (null: gone or a zombie); exported for its test. */
export function processStartTimeSync(pid: number): string | null {
  try {
    return startTimeOf(fsSync.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The start time of a process that still runs; null for one that exited, even while it waits to be
 * reaped (a zombie: a killed service's tool is reparented to a PID 1 that may be slow to reap it).
 */
const startTimeOf = (stat: string): string | null => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  return fields[19] ?? null;
};

type JobRow = typeof jobs.$inferSelect;

function toRow(v: JobView): typeof jobs.$inferInsert {
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
    result: v.result === null ? null : JSON.stringify(v.result),
    error: v.error === null ? null : JSON.stringify(v.error),
    output: JSON.stringify(v.output),
    createdAt: v.createdAt,
    startedAt: v.startedAt,
    endedAt: v.endedAt,
  };
}

function fromRow(r: JobRow): JobView {
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
  };
}
