/**
 * The scheduler on a manual clock: a due slot runs once and is recorded; a week of missed slots
 * runs once at start; a busy job is tried again at the next tick; another refusal is recorded as
 * the slot's run.
 */
import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { type Schedule, Scheduler } from './scheduler.ts';
import { ManualTime, MemoryLogger, MemoryScheduleStore } from './test-support/index.ts';

const DAY = 24 * 3600 * 1000;

function setup(run: Schedule['run']) {
  const time = new ManualTime('2026-01-08T03:00:00.000Z');
  const store = new MemoryScheduleStore();
  const logger = new MemoryLogger();
  const scheduler = new Scheduler({ store, clock: time, timers: time, logger });
  const runs: string[] = [];
  scheduler.register({
    name: 'daily',
    // every day at 03:00 after the last run; due at once when it never ran
    nextDue: (last) => {
      if (!last) return new Date('2026-01-01T03:00:00.000Z');
      const next = new Date(last);
      next.setUTCHours(3, 0, 0, 0);
      return next.getTime() <= last.getTime() ? new Date(next.getTime() + DAY) : next;
    },
    run: async (due) => {
      runs.push(due.toISOString());
      return run(due);
    },
  });
  return { time, store, logger, scheduler, runs };
}

describe('Scheduler', () => {
  it('runs a week of missed slots once at start, then the next slot when it comes', async () => {
    const { time, store, scheduler, runs } = setup(async () => 'job-1');
    scheduler.start(20_000);
    await time.flush();
    expect(runs).toEqual(['2026-01-01T03:00:00.000Z']);
    expect(store.last('daily')).toEqual({
      name: 'daily',
      lastDueAt: '2026-01-01T03:00:00.000Z',
      lastRunAt: '2026-01-08T03:00:00.000Z',
      jobId: 'job-1',
    });
    expect(scheduler.view('daily')?.nextDueAt).toBe('2026-01-09T03:00:00.000Z');
    await time.advance(DAY - 20_000);
    expect(runs).toHaveLength(1);
    await time.advance(20_000);
    expect(runs).toEqual(['2026-01-01T03:00:00.000Z', '2026-01-09T03:00:00.000Z']);
    await scheduler.stop();
    await time.advance(2 * DAY);
    expect(runs).toHaveLength(2);
  });

  it('tries a busy slot again at the next tick, recording nothing meanwhile', async () => {
    let busy = true;
    const { time, store, scheduler, runs } = setup(async () => {
      if (busy) throw new AppError(409, 'job_running', 'Parity sync is running.');
      return 'job-2';
    });
    scheduler.start(20_000);
    await time.flush();
    expect(store.last('daily')).toBeNull();
    busy = false;
    await time.advance(20_000);
    expect(runs).toHaveLength(2);
    expect(store.last('daily')?.jobId).toBe('job-2');
    await scheduler.stop();
  });

  it('records any other refusal as the slot run, with a warning, so it does not repeat every tick', async () => {
    const { time, store, scheduler, runs, logger } = setup(async () => {
      throw new AppError(409, 'no_array', 'There is no array.');
    });
    await scheduler.tick();
    expect(store.last('daily')).toMatchObject({ jobId: null });
    expect(logger.lines[0]).toMatchObject({ level: 'warn', message: 'scheduled run refused' });
    await time.advance(20_000);
    await scheduler.tick();
    expect(runs).toHaveLength(1);
  });

  it('skips a schedule whose next run cannot be computed, logging it', async () => {
    const time = new ManualTime();
    const logger = new MemoryLogger();
    const scheduler = new Scheduler({ store: new MemoryScheduleStore(), clock: time, timers: time, logger });
    scheduler.register({
      name: 'broken',
      nextDue: () => {
        throw new Error('bad cron');
      },
      run: async () => null,
    });
    await scheduler.tick();
    expect(logger.lines[0]).toMatchObject({ level: 'error', fields: { schedule: 'broken' } });
    expect(scheduler.view('nope')).toBeNull();
  });

  it('runs the schedules due in one tick by their order, lowest first', async () => {
    const time = new ManualTime();
    const scheduler = new Scheduler({
      store: new MemoryScheduleStore(),
      clock: time,
      timers: time,
      logger: new MemoryLogger(),
    });
    const ran: string[] = [];
    const due = (name: string, order?: number): Schedule => ({
      name,
      ...(order === undefined ? {} : { order }),
      nextDue: (last) => (last ? null : new Date(0)),
      run: async () => {
        ran.push(name);
        return null;
      },
    });
    scheduler.register(due('parity.sync'));
    scheduler.register(due('mover', -10));
    scheduler.register(due('late', 5));
    await scheduler.tick();
    expect(ran).toEqual(['mover', 'parity.sync', 'late']);
  });
});
