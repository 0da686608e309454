/**
 * The in-service scheduler (09): no cron file to drift. Each schedule says when it is next due
 * given the last slot it ran for; `tick()` runs every schedule whose slot has come, on the injected
 * clock (tests set the clock and call `tick()`, they never sleep). A slot missed while the service
 * was down is in the past at the next start, so it runs once then, and the next slot is the one
 * after. A run that finds its job type busy (another array job) is tried again at the next tick.
 */
import { isAppError, isoMillis } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { scheduleRuns } from '../db/schema.ts';

export interface Schedule {
  /** Unique, stable (the row key of its last run), e.g. `parity.sync`. */
  name: string;
  /**
   * The next due time after its last scheduled run (`lastRunAt`, null: never ran), or null when
   * the schedule is off or has nothing to do (no array). Counting from the run, not from the slot,
   * makes a week of missed slots run once, not seven times.
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

export interface ScheduleView {
  name: string;
  nextDueAt: string | null;
  lastDueAt: string | null;
  lastRunAt: string | null;
  lastJobId: string | null;
}

/** Default interval between ticks: a slot starts at most this late. */
export const TICK_MS = 20_000;

export class Scheduler {
  private readonly ctx: AppContext;
  private readonly schedules = new Map<string, Schedule>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  register(schedule: Schedule): void {
    this.schedules.set(schedule.name, schedule);
  }

  /** Starts the timer (the first tick runs at once: missed slots run at start). */
  start(intervalMs = TICK_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  private last(name: string) {
    return this.ctx.db.select().from(scheduleRuns).where(eq(scheduleRuns.name, name)).get() ?? null;
  }

  /** When each schedule is next due (the status routes show it). */
  view(name: string): ScheduleView | null {
    const s = this.schedules.get(name);
    if (!s) return null;
    const last = this.last(name);
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
    const ordered = [...this.schedules.values()].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
    for (const s of ordered) {
      const now = this.ctx.clock.now();
      let due: Date | null;
      try {
        const last = this.last(s.name);
        due = s.nextDue(last ? new Date(last.lastRunAt) : null);
      } catch (err) {
        this.ctx.logger.error('schedule could not compute its next run', {
          schedule: s.name,
          error: String(err),
        });
        continue;
      }
      if (due === null || due.getTime() > now.getTime()) continue;
      let jobId: string | null;
      try {
        jobId = await s.run(due);
      } catch (err) {
        if (isAppError(err) && (err.code === 'job_running' || err.code === 'import_in_progress')) continue;
        // any other refusal is recorded as the slot's run: it would fail the same way every tick
        this.ctx.logger.warn('scheduled run refused', { schedule: s.name, error: String(err) });
        jobId = null;
      }
      const row = { name: s.name, lastDueAt: isoMillis(due), lastRunAt: isoMillis(now), jobId };
      await this.ctx.writes.run((db) =>
        db.insert(scheduleRuns).values(row).onConflictDoUpdate({ target: scheduleRuns.name, set: row }).run(),
      );
    }
  }
}
