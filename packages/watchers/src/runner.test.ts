/**
 * The watcher loops on a manual clock and timers, applying their decisions to the raise-once
 * conditions of @appliance/jobs in memory: staggered first cycles, each loop on its own interval
 * read at every cycle, cycles that never overlap, a failure logged once, pauses, a disabled
 * watcher's conditions cleared, stop.
 */
import { CollectingConditionEvents, Conditions, MemoryConditionStore } from '@appliance/jobs';
import { describe, expect, it } from 'vitest';
import type { Observation } from './core/model.ts';
import { FIRST_RUN_DELAY_MS, FIRST_RUN_STAGGER_MS, type WatcherDefinition, WatcherRunner } from './runner.ts';
import { ManualClock } from './test-support/index.ts';

const pool = (value: string) => ({
  key: 'test:pool',
  eventType: 'pool_above_threshold' as const,
  subject: 'the test pool',
  value,
  title: `Test pool at ${value}`,
  message: `The test pool is at ${value}.`,
});

function setup() {
  const clock = new ManualClock('2026-05-01T08:00:00.000Z');
  const events = new CollectingConditionEvents();
  const logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void logs.push({ level, message, ...(fields ? { fields } : {}) });
  const logger = { info: log('info'), warn: log('warn'), error: log('error') };
  const conditions = new Conditions({ store: new MemoryConditionStore(), events, clock, logger });
  const runner = new WatcherRunner({ conditions, clock, logger, timers: clock });
  let probe: () => Promise<Observation> = async () => ({ conditions: [] });
  let interval = 7;
  let enabled = true;
  let observed = 0;
  const def: WatcherDefinition = {
    name: 'test',
    events: ['pool_above_threshold'],
    owns: ['test:'],
    intervalSeconds: () => interval,
    enabled: () => enabled,
    disabledReason: 'switched off by the test',
    observe: () => {
      observed += 1;
      return probe();
    },
  };
  runner.register(def);
  return {
    clock,
    events,
    logs,
    conditions,
    runner,
    setProbe: (p: () => Promise<Observation>) => {
      probe = p;
    },
    setInterval: (s: number) => {
      interval = s;
    },
    setEnabled: (e: boolean) => {
      enabled = e;
    },
    observed: () => observed,
    status: () => runner.status().find((s) => s.name === 'test')!,
  };
}

describe('WatcherRunner', () => {
  it('staggers the first cycles, then each loop waits its own interval, read at every cycle', async () => {
    const t = setup();
    t.runner.register({
      name: 'b',
      events: [],
      owns: ['b:'],
      intervalSeconds: () => 60,
      observe: async () => ({ conditions: [] }),
    });
    expect(t.clock.delays()).toEqual([]);
    t.runner.start();
    expect(t.clock.delays()).toEqual([FIRST_RUN_DELAY_MS, FIRST_RUN_DELAY_MS + FIRST_RUN_STAGGER_MS]);
    await t.clock.advance(FIRST_RUN_DELAY_MS);
    expect(t.observed()).toBe(1);
    expect(t.status()).toMatchObject({ runs: 1, lastRunAt: '2026-05-01T08:00:01.000Z', error: null });
    expect(t.clock.delays()).toEqual([FIRST_RUN_STAGGER_MS, 7000]);
    await t.clock.advance(7000);
    expect(t.observed()).toBe(2);
    t.setInterval(30);
    await t.clock.advance(7000);
    expect(t.observed()).toBe(3);
    expect(t.clock.delays()).toContain(30_000);
    // the settings changed: every loop waits its new interval from now
    t.setInterval(120);
    t.runner.reschedule();
    expect(t.clock.delays()).toEqual([60_000, 120_000]);
    await t.runner.stop();
    expect(t.clock.delays()).toEqual([]);
  });

  it('a watcher registered after the start is scheduled at once; a name is registered once', async () => {
    const t = setup();
    t.runner.start();
    await t.clock.advance(FIRST_RUN_DELAY_MS);
    t.runner.register({
      name: 'late',
      events: [],
      owns: ['late:'],
      intervalSeconds: () => 5,
      observe: async () => ({ conditions: [] }),
    });
    expect(t.clock.delays()).toContain(FIRST_RUN_DELAY_MS);
    expect(() =>
      t.runner.register({
        name: 'late',
        events: [],
        owns: [],
        intervalSeconds: () => 5,
        observe: async () => ({ conditions: [] }),
      }),
    ).toThrow('a watcher named late is registered already');
    expect(t.runner.names()).toEqual(['test', 'late']);
    await expect(t.runner.runOnce('nope')).rejects.toThrow('no watcher named nope');
  });

  it('raises once while a condition holds, updates its value silently, records its clear', async () => {
    const t = setup();
    t.runner.start();
    t.setProbe(async () => ({ conditions: [pool('91 %')] }));
    await t.clock.advance(FIRST_RUN_DELAY_MS);
    t.setProbe(async () => ({ conditions: [pool('95 %')] }));
    await t.clock.advance(7000 * 10);
    expect(t.observed()).toBe(11);
    expect(t.events.raised.map((e) => e.title)).toEqual(['Test pool at 91 %']);
    expect(t.conditions.holding()).toEqual([
      expect.objectContaining({
        key: 'test:pool',
        value: '95 %',
        source: 'test',
        since: '2026-05-01T08:00:01.000Z',
      }),
    ]);
    t.setProbe(async () => ({ conditions: [], unobserved: ['test:pool'] }));
    await t.runner.runOnce('test');
    expect(t.conditions.holding()).toHaveLength(1);
    t.setProbe(async () => ({ conditions: [] }));
    await t.runner.runOnce('test');
    expect(t.conditions.holding()).toEqual([]);
    t.setProbe(async () => ({ conditions: [pool('92 %')] }));
    await t.runner.runOnce('test');
    expect(t.events.raised).toHaveLength(2);
  });

  it('a failing watcher is logged once (not every cycle) and shown in its status, then recovers', async () => {
    const t = setup();
    t.setProbe(async () => {
      throw new Error('the probe broke');
    });
    for (let i = 0; i < 5; i++) {
      await t.runner.runOnce('test');
      await t.clock.advance(1000);
    }
    expect(t.logs).toEqual([
      { level: 'error', message: 'watcher failed', fields: { watcher: 'test', error: 'the probe broke' } },
    ]);
    expect(t.status()).toMatchObject({
      runs: 5,
      error: { message: 'the probe broke', since: '2026-05-01T08:00:00.000Z' },
      lastRunAt: '2026-05-01T08:00:04.000Z',
    });
    t.setProbe(async () => ({ conditions: [], notes: [{ subject: 'thing', message: 'all quiet' }] }));
    await t.runner.runOnce('test');
    expect(t.logs.at(-1)).toEqual({
      level: 'info',
      message: 'watcher recovered',
      fields: { watcher: 'test' },
    });
    expect(t.status()).toMatchObject({ error: null, notes: [{ subject: 'thing', message: 'all quiet' }] });
  });

  it('cycles never overlap: runOnce waits for the running one; a scheduled cycle does not start a second', async () => {
    const t = setup();
    t.runner.start();
    const releases: Array<() => void> = [];
    t.setProbe(
      () =>
        new Promise<Observation>((resolve) => {
          releases.push(() => resolve({ conditions: [] }));
        }),
    );
    await t.clock.advance(FIRST_RUN_DELAY_MS);
    expect(t.status().running).toBe(true);
    const second = t.runner.runOnce('test');
    await t.clock.settle();
    expect(t.observed()).toBe(1);
    releases[0]!();
    await t.clock.settle();
    expect(t.observed()).toBe(2);
    releases[1]!();
    expect((await second).runs).toBe(2);
    // the scheduled loop goes on at its interval
    expect(t.clock.delays()).toEqual([7000]);
  });

  it('a paused prefix is neither cleared nor raised, paused at the start or at the end of a cycle', async () => {
    const t = setup();
    t.setProbe(async () => ({ conditions: [pool('91 %')] }));
    await t.runner.runOnce('test');
    const release = t.runner.pause(['test:']);
    t.setProbe(async () => ({ conditions: [] }));
    await t.runner.runOnce('test');
    release();
    let late: (() => void) | null = null;
    t.setProbe(async () => {
      late = t.runner.pause(['test:']);
      return { conditions: [] };
    });
    await t.runner.runOnce('test');
    expect(t.conditions.holding().map((c) => c.key)).toEqual(['test:pool']);
    late!();
    late!(); // idempotent
    t.setProbe(async () => ({ conditions: [] }));
    await t.runner.runOnce('test');
    expect(t.conditions.holding()).toEqual([]);
    expect(t.events.raised).toHaveLength(1);
  });

  it('a disabled watcher observes nothing: its conditions clear, its status says why', async () => {
    const t = setup();
    t.setProbe(async () => ({ conditions: [pool('91 %')] }));
    await t.runner.runOnce('test');
    t.setEnabled(false);
    await t.runner.runOnce('test');
    expect(t.observed()).toBe(1);
    expect(t.conditions.holding()).toEqual([]);
    expect(t.status()).toMatchObject({ enabled: false, disabledReason: 'switched off by the test', runs: 2 });
  });

  it('stop waits for the running cycle and schedules nothing after it', async () => {
    const t = setup();
    t.runner.start();
    let release!: () => void;
    t.setProbe(() => new Promise<Observation>((resolve) => (release = () => resolve({ conditions: [] }))));
    await t.clock.advance(FIRST_RUN_DELAY_MS);
    let stopped = false;
    const stopping = t.runner.stop().then(() => (stopped = true));
    await t.clock.settle();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(t.clock.delays()).toEqual([]);
  });
});
