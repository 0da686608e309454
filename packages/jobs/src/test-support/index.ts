/**
 * In-memory ports for unit tests: a manual clock and timers (nothing runs until the test says so),
 * a job store and a schedule store in memory, a process table, an event recorder.
 */
import type {
  AuditEntry,
  Clock,
  JobEvents,
  JobListQuery,
  JobStore,
  Logger,
  ProgressEvent,
  Processes,
  RunnerPorts,
  StoredJob,
  Timers,
} from '../ports.ts';
import type { ScheduleRun, ScheduleStore } from '../scheduler.ts';
import type { JobError, JobState, JobView } from '../types.ts';

/** A clock and timers that move only when the test calls `advance` or `flush`. */
export class ManualTime implements Clock, Timers {
  private ms: number;
  private readonly deferred: Array<() => void> = [];
  private readonly timers: Array<{ at: number; fn: () => void; every: number | null; cancelled: boolean }> =
    [];

  constructor(start = '2026-01-01T00:00:00.000Z') {
    this.ms = Date.parse(start);
  }

  now = (): Date => new Date(this.ms);
  monotonicMs = (): number => this.ms;
  defer = (fn: () => void): void => void this.deferred.push(fn);
  sleep = (ms: number): Promise<void> =>
    new Promise((resolve) =>
      this.timers.push({ at: this.ms + ms, fn: resolve, every: null, cancelled: false }),
    );
  every = (ms: number, fn: () => void) => {
    const t = { at: this.ms + ms, fn, every: ms, cancelled: false };
    this.timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  };

  /** Sets the wall time without running timers. */
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }

  /** Runs deferred work and lets promises settle. */
  async flush(): Promise<void> {
    for (let i = 0; i < 20; i += 1) {
      while (this.deferred.length) this.deferred.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Moves time forward by `ms`, firing the timers due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    for (;;) {
      const next = this.timers.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.ms = next.at;
      if (next.every === null) next.cancelled = true;
      else next.at += next.every;
      next.fn();
      await this.flush();
    }
    this.ms = end;
    await this.flush();
  }
}

export class MemoryJobStore implements JobStore<string> {
  readonly rows = new Map<string, StoredJob>();
  readonly audits: AuditEntry<string>[] = [];
  /** Makes the next insert fail (a full disk). */
  failNextInsert: Error | null = null;

  async insert(view: JobView, audit: AuditEntry<string>): Promise<void> {
    if (this.failNextInsert) {
      const err = this.failNextInsert;
      this.failNextInsert = null;
      throw err;
    }
    this.rows.set(view.id, { ...structuredClone(view), pid: null });
    this.audits.push(audit);
  }
  async save(view: JobView, final: boolean): Promise<void> {
    const row = this.rows.get(view.id);
    if (!row) return;
    const { result, error, endedAt, ...live } = structuredClone(view);
    Object.assign(row, live, final ? { result, error, endedAt, pid: null } : {});
  }
  async setPid(id: string, pid: number | null): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.pid = pid;
  }
  get(id: string): StoredJob | null {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }
  private newestFirst(): StoredJob[] {
    return [...this.rows.values()].sort((a, b) =>
      a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt),
    );
  }
  list(q: JobListQuery): StoredJob[] {
    let rows = this.newestFirst().filter(
      (r) => (!q.type || r.type === q.type) && (!q.state || r.state === q.state),
    );
    if (q.before) {
      const i = rows.findIndex((r) => r.id === q.before);
      if (i >= 0) rows = rows.slice(i + 1);
    }
    return rows.slice(0, q.limit).map((r) => structuredClone(r));
  }
  latest(type: string, states?: readonly JobState[]): StoredJob | null {
    return this.newestFirst().find((r) => r.type === type && (!states || states.includes(r.state))) ?? null;
  }
  inStates(states: readonly JobState[]): StoredJob[] {
    return [...this.rows.values()].filter((r) => states.includes(r.state));
  }
  async markInterrupted(
    jobs: ReadonlyArray<{ id: string; endedAt: string; error: JobError }>,
  ): Promise<void> {
    for (const j of jobs)
      Object.assign(this.rows.get(j.id)!, {
        state: 'interrupted',
        cancellable: false,
        etaSeconds: null,
        endedAt: j.endedAt,
        error: j.error,
      });
  }
  async settle(id: string, error: JobError, result: unknown): Promise<void> {
    Object.assign(this.rows.get(id)!, { error, result });
  }
  async prune(olderThan: Date, keep: number, states: readonly JobState[]): Promise<number> {
    const ended = new Set<JobState>(states);
    const byType = new Map<string, number>();
    let n = 0;
    for (const r of this.newestFirst()) {
      const rank = (byType.get(r.type) ?? 0) + 1;
      byType.set(r.type, rank);
      if (rank > keep && ended.has(r.state) && r.createdAt < olderThan.toISOString()) {
        this.rows.delete(r.id);
        n += 1;
      }
    }
    return n;
  }
  async audit(entry: AuditEntry<string>): Promise<void> {
    this.audits.push(entry);
  }
}

/** Host processes as a table the test edits: `startTimes` of the running ones, `signals` sent. */
export class FakeProcesses implements Processes {
  readonly startTimes = new Map<number, string>();
  readonly signals: Array<{ pid: number; signal: string }> = [];
  /** Whether SIGINT ends a process at once (false: only SIGKILL does). */
  stopsOnSigint = true;
  async startTime(pid: number) {
    return this.startTimes.get(pid) ?? null;
  }
  startTimeSync(pid: number) {
    return this.startTimes.get(pid) ?? null;
  }
  signal(pid: number, signal: 'SIGINT' | 'SIGKILL'): boolean {
    if (!this.startTimes.has(pid)) return false;
    this.signals.push({ pid, signal });
    if (signal === 'SIGKILL' || this.stopsOnSigint) this.startTimes.delete(pid);
    return true;
  }
}

/** Records every event published (progress reporters are not throttled here). */
export class RecordingEvents implements JobEvents {
  readonly events: ProgressEvent[] = [];
  publish(event: ProgressEvent): void {
    this.events.push(event);
  }
  progress(operationId: string, operation: string, target: string) {
    const emit = (done: boolean) => (progress: Record<string, unknown>) =>
      this.publish({ type: 'progress', data: { operationId, operation, target, done, progress } });
    return { update: emit(false), finish: emit(true) };
  }
}

export class MemoryLogger implements Logger {
  readonly lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  info = (message: string, fields?: Record<string, unknown>) =>
    void this.lines.push({ level: 'info', message, fields });
  warn = (message: string, fields?: Record<string, unknown>) =>
    void this.lines.push({ level: 'warn', message, fields });
  error = (message: string, fields?: Record<string, unknown>) =>
    void this.lines.push({ level: 'error', message, fields });
}

export class MemoryScheduleStore implements ScheduleStore {
  readonly runs = new Map<string, ScheduleRun>();
  last(name: string) {
    return this.runs.get(name) ?? null;
  }
  async record(run: ScheduleRun) {
    this.runs.set(run.name, { ...run });
  }
}

/** Every port of a runner in memory; the actor is a user name. */
export function memoryPorts() {
  const time = new ManualTime();
  let n = 0;
  const ports = {
    store: new MemoryJobStore(),
    clock: time,
    timers: time,
    processes: new FakeProcesses(),
    events: new RecordingEvents(),
    logger: new MemoryLogger(),
    newId: () => {
      n += 1;
      return `job-${String(n).padStart(3, '0')}`;
    },
    actorName: (actor: string | null) => actor ?? 'system',
  } satisfies RunnerPorts<string>;
  return { ...ports, time };
}
