/** The backup schedules on a manual clock: a due plan starts once, a busy disk keeps it due, staleness is raised once and ends. */
import { conflict } from '@appliance/common';
import { Scheduler } from '@appliance/jobs';
import { ManualTime, MemoryLogger, MemoryScheduleStore } from '@appliance/jobs/testing';
import { describe, expect, it } from 'vitest';
import type { RaisedEvent } from '../core/messages.ts';
import { memoryPlan } from '../test-support/index.ts';
import type { RunParams } from './kinds.ts';
import {
  checkStaleness,
  type PlanScheduleState,
  registerBackupSchedules,
  type ScheduleDeps,
} from './schedules.ts';

function setup() {
  const time = new ManualTime('2026-11-25T02:00:00.000Z');
  const plan = {
    ...memoryPlan('nightly', { destination: 'bk', shares: ['media'] }),
    createdAt: '2026-11-24T12:00:00.000Z',
  };
  plan.drill = { ...plan.drill, enabled: false };
  const state: PlanScheduleState = {
    since: '2026-11-24T12:00:00.000Z',
    lastScheduledAt: null,
    lastDrillAt: null,
    lastDrillScheduledAt: null,
    firstSuccessAt: null,
    lastSuccessAt: null,
  };
  const started: { type: string; params: RunParams }[] = [];
  let busy = false;
  const held = new Map<string, RaisedEvent>();
  const scheduler = new Scheduler({
    store: new MemoryScheduleStore(),
    clock: time,
    timers: time,
    logger: new MemoryLogger(),
  });
  const deps: ScheduleDeps = {
    plans: {
      list: () => [plan],
      state: () => state,
      withState: async () => [{ plan, state }],
      markScheduled: async (_plan, field, at) => {
        state[field] = at;
      },
    },
    timeZone: () => 'UTC',
    clock: time,
    start: async (kind, params) => {
      if (busy) throw conflict('job_running', 'Backup is running (nightly).');
      started.push({ type: kind.type, params });
      return { view: { id: `job-${started.length}` } };
    },
    scheduler,
    conditions: {
      holding: (prefixes) =>
        [...held.keys()].filter((k) => prefixes.some((p) => k.startsWith(p))).map((key) => ({ key })),
      hold: async (key, event) => void held.set(key, event),
      clear: async (key) => held.delete(key),
    },
    logger: new MemoryLogger(),
  };
  registerBackupSchedules(deps);
  return { time, state, started, scheduler, held, deps, setBusy: (b: boolean) => (busy = b) };
}

describe('backup schedules', () => {
  it('starts a plan at its slot once; a busy disk keeps it due for the next tick', async () => {
    const t = setup();
    await t.scheduler.tick();
    expect(t.started).toEqual([]); // 02:00, the slot is 03:30
    t.time.set('2026-11-25T03:30:10.000Z');
    t.setBusy(true);
    await t.scheduler.tick();
    expect(t.started).toEqual([]);
    expect(t.state.lastScheduledAt).toBeNull();
    t.setBusy(false);
    await t.scheduler.tick();
    expect(t.started).toEqual([{ type: 'backup.run', params: { plan: 'nightly', destination: 'bk' } }]);
    expect(t.state.lastScheduledAt).toBe('2026-11-25T03:30:10.000Z');
    await t.scheduler.tick();
    expect(t.started).toHaveLength(1);
  });

  it('raises backup_destination_stale once after two periods without a success, and ends it after one', async () => {
    const t = setup();
    t.time.set('2026-11-27T04:00:00.000Z');
    expect(await checkStaleness(t.deps)).toEqual(['nightly']);
    expect(await checkStaleness(t.deps)).toEqual([]);
    expect([...t.held.keys()]).toEqual(['backup:stale:nightly']);
    expect(t.held.get('backup:stale:nightly')?.eventType).toBe('backup_destination_stale');
    t.state.lastSuccessAt = '2026-11-27T03:45:00.000Z';
    await checkStaleness(t.deps);
    expect(t.held.size).toBe(0);
  });
});
