/**
 * The in-service scheduler (09): no cron file to drift. Each schedule says when it is next due
 * given its last run; `tick()` runs every schedule whose slot has come, on the injected clock
 * (tests set the clock and call `tick()`, they never sleep). A slot missed while the service was
 * down is in the past at the next start, so it runs once then, and the next slot is the one after.
 * A run that finds its job's groups busy (`409 job_running`) or an import running is tried again
 * at the next tick; any other refusal is recorded as the slot's run.
 */
import { isoMillis, isRefusal } from '@appliance/common';
import type { Logger, Timers } from './ports.ts';

export interface Schedule {
  /** Unique, stable (the key of its last run), e.g. `parity.sync`. */
  name: string;
  /**
   * The next due time after its last scheduled run (`lastRunAt`, null: never ran), or null when
   * the schedule is off or has nothing to do. Counting from the run, not from the slot, makes a
   * week of missed slots run once, not seven times.
   */
  nextDue(lastRunAt: Date | null): Date | null;
  /** Starts the work; returns its job id. Throwing `409 job_running` means "busy, try again". */
  run(dueAt: Date): Promise<string | null>;
  /**
   * Among schedules due in the same tick, lower runs first (default 0). The mover (-10) starts
   * before the parity sync, which then finds the array busy and runs at a later tick, after it.
   */
  order?: number;
}

/** The last run of a schedule, as stored. */
export interface ScheduleRun {
  name: string;
  lastDueAt: string;
  lastRunAt: string;
  jobId: string | null;
}

export interface ScheduleStore {
  last(name: string): ScheduleRun | null;
  record(run: ScheduleRun): Promise<void>;
}

export interface ScheduleView {
  name: string;
  nextDueAt: string | null;
  lastDueAt: string | null;
  lastRunAt: string | null;
  lastJobId: string | null;
}

/** Default interval between ticks: a slot starts at most this late. */
export const TICK_MS = 20_000;

/** Refusals that mean "busy now, try at the next tick". */
const BUSY_CODES = new Set(['job_running', 'import_in_progress']);

export class Scheduler {
  private readonly ports: { store: ScheduleStore; clock: { now(): Date }; timers: Timers; logger: Logger };
  private readonly schedules = new Map<string, Schedule>();
  private timer: { cancel(): void } | null = null;
  private ticking: Promise<void> | null = null;

  constructor(ports: { store: ScheduleStore; clock: { now(): Date }; timers: Timers; logger: Logger }) {
    this.ports = ports;
  }

  register(schedule: Schedule): void {
    this.schedules.set(schedule.name, schedule);
  }

  /** Starts the ticks (the first runs at once: missed slots run at start). */
  start(intervalMs = TICK_MS): void {
    if (this.timer) return;
    this.timer = this.ports.timers.every(intervalMs, () => void this.tick());
    void this.tick();
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    await this.ticking;
  }

  /** When a schedule is next due, and its last run (the status routes show it). */
  view(name: string): ScheduleView | null {
    const s = this.schedules.get(name);
    if (!s) return null;
    const last = this.ports.store.last(name);
    const next = s.nextDue(last ? new Date(last.lastRunAt) : null);
    return {
      name,
      nextDueAt: next ? isoMillis(next) : null,
      lastDueAt: last?.lastDueAt ?? null,
      lastRunAt: last?.lastRunAt ?? null,
      lastJobId: last?.jobId ?? null,
    };
  }

  /** Runs every schedule that is due now; one tick at a time. */
  tick(): Promise<void> {
    this.ticking ??= this.runDue().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async runDue(): Promise<void> {
    const { store, clock, logger } = this.ports;
    const ordered = [...this.schedules.values()].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
    for (const s of ordered) {
      const now = clock.now();
      let due: Date | null;
      try {
        const last = store.last(s.name);
        due = s.nextDue(last ? new Date(last.lastRunAt) : null);
      } catch (err) {
        logger.error('schedule could not compute its next run', { schedule: s.name, error: String(err) });
        continue;
      }
      if (due === null || due.getTime() > now.getTime()) continue;
      let jobId: string | null;
      try {
        jobId = await s.run(due);
      } catch (err) {
        if (isRefusal(err) && BUSY_CODES.has(err.code)) continue;
        // any other refusal is recorded as the slot's run: it would fail the same way every tick
        logger.warn('scheduled run refused', { schedule: s.name, error: String(err) });
        jobId = null;
      }
      await store.record({ name: s.name, lastDueAt: isoMillis(due), lastRunAt: isoMillis(now), jobId });
    }
  }
}
