/**
 * The watcher mechanism through the real server: loops on injected timers, a failing watcher logged
 * once and shown in GET /health, cycles that never overlap nor block requests, conditions reported
 * by a feature (hold/clear) raised once, a disabled watcher's conditions cleared. The watchers here
 * are test definitions whose probe is a function (the mechanism is under test, not a probe).
 */
import type { Observation } from '@appliance/watchers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../test-support/sandbox.ts';
import { FIRST_RUN_DELAY_MS, type WatcherTimers } from '@appliance/watchers';

const pool = (value: string) => ({
  key: 'test:pool',
  eventType: 'pool_above_threshold' as const,
  subject: 'the test pool',
  value,
  title: `Test pool at ${value}`,
  message: `The test pool is at ${value}.`,
});

/** Timers that record what was scheduled; `fire()` runs the due callbacks. */
function recordingTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: WatcherTimers = {
    setTimeout(fn, ms) {
      const id = next++;
      pending.set(id, { fn, ms });
      return id;
    },
    clearTimeout(h) {
      pending.delete(h as number);
    },
  };
  return {
    timers,
    delays: () => [...pending.values()].map((p) => p.ms),
    fire() {
      const due = [...pending.entries()];
      pending.clear();
      for (const [, p] of due) p.fn();
    },
  };
}

describe('the watcher mechanism', () => {
  let s: Sandbox;
  let probe: () => Promise<Observation>;
  let enabled = true;
  const alerts = (type: string) =>
    (
      s.server.ctx.sqlite
        .prepare('select count(*) as n from notify_alerts where event_type = ?')
        .get(type) as {
        n: number;
      }
    ).n;
  const health = async () => (await s.call('GET', '/health')).body;

  beforeAll(async () => {
    s = await startSandbox();
    s.server.ctx.watchers.register({
      name: 'test',
      events: ['pool_above_threshold'],
      owns: ['test:'],
      intervalSeconds: () => 7,
      enabled: () => enabled,
      disabledReason: 'switched off by the test',
      observe: () => probe(),
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a failing watcher says so in the log once (not every cycle) and in GET /health, then recovers', async () => {
    probe = async () => {
      throw new Error('the probe broke');
    };
    for (let i = 0; i < 5; i++) await s.server.ctx.watchers.runOnce('test');
    const failed = s.logs.filter((l) => l.includes('"watcher failed"'));
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0]!)).toMatchObject({
      level: 'error',
      watcher: 'test',
      error: 'the probe broke',
    });
    const h = await health();
    const status = h.watchers.find((w: { name: string }) => w.name === 'test');
    expect(status).toMatchObject({ runs: 5, error: { message: 'the probe broke' }, enabled: true });
    expect(typeof status.error.since).toBe('string');

    probe = async () => ({ conditions: [], notes: [{ subject: 'thing', message: 'all quiet' }] });
    await s.server.ctx.watchers.runOnce('test');
    expect(s.logs.filter((l) => l.includes('"watcher recovered"'))).toHaveLength(1);
    const after = (await health()).watchers.find((w: { name: string }) => w.name === 'test');
    expect(after).toMatchObject({ error: null, notes: [{ subject: 'thing', message: 'all quiet' }] });
  });

  it('raises once while a condition holds, updates its value silently, records its clear', async () => {
    probe = async () => ({ conditions: [pool('91 %')] });
    await s.server.ctx.watchers.runOnce('test');
    probe = async () => ({ conditions: [pool('95 %')] });
    for (let i = 0; i < 10; i++) await s.server.ctx.watchers.runOnce('test');
    expect(alerts('pool_above_threshold')).toBe(1);
    const held = (await health()).conditions;
    expect(held).toEqual([
      expect.objectContaining({ key: 'test:pool', value: '95 %', source: 'test', subject: 'the test pool' }),
    ]);
    probe = async () => ({ conditions: [] });
    await s.server.ctx.watchers.runOnce('test');
    expect((await health()).conditions).toEqual([]);
    // a new onset after the clear is a new condition: raised again
    probe = async () => ({ conditions: [pool('92 %')] });
    await s.server.ctx.watchers.runOnce('test');
    expect(alerts('pool_above_threshold')).toBe(2);
  });

  it('keeps conditions under unobserved prefixes (a probe that could not see them)', async () => {
    probe = async () => ({ conditions: [], unobserved: ['test:pool'] });
    await s.server.ctx.watchers.runOnce('test');
    expect((await health()).conditions.map((c: { key: string }) => c.key)).toEqual(['test:pool']);
  });

  it('a paused prefix is neither cleared nor raised (a cycle paused at its start or at its end); released, it is observed again', async () => {
    const raised = alerts('pool_above_threshold');
    const ctx = s.server.ctx;
    const release = ctx.watchers.pause(['test:']);
    probe = async () => ({ conditions: [] });
    await ctx.watchers.runOnce('test');
    release();
    // paused only while the cycle observed: what it saw then is not news either
    let late: (() => void) | null = null;
    probe = async () => {
      late = ctx.watchers.pause(['test:']);
      return { conditions: [] };
    };
    await ctx.watchers.runOnce('test');
    expect((await health()).conditions.map((c: { key: string }) => c.key)).toEqual(['test:pool']);
    late!();
    late!(); // the release is idempotent
    probe = async () => ({ conditions: [pool('93 %')] });
    await ctx.watchers.runOnce('test');
    expect(alerts('pool_above_threshold')).toBe(raised);
    probe = async () => ({ conditions: [] });
    await ctx.watchers.runOnce('test');
    expect((await health()).conditions).toEqual([]);
    probe = async () => ({ conditions: [pool('91 %')] });
    await ctx.watchers.runOnce('test');
    expect(alerts('pool_above_threshold')).toBe(raised + 1);
  });

  it('a disabled watcher observes nothing: its conditions clear, GET /health says why', async () => {
    enabled = false;
    await s.server.ctx.watchers.runOnce('test');
    expect((await health()).conditions).toEqual([]);
    const status = (await health()).watchers.find((w: { name: string }) => w.name === 'test');
    expect(status).toMatchObject({ enabled: false, disabledReason: 'switched off by the test' });
    enabled = true;
  });

  it('a feature reports a condition with hold/clear: raised once, shared with the watchers', async () => {
    const report = {
      eventType: 'array_degraded',
      title: 'Parity job: disk1 missing',
      message: 'disk1 is missing.',
    };
    expect(await s.server.ctx.conditions.hold('array:degraded', report, 'parity')).toBe(true);
    expect(await s.server.ctx.conditions.hold('array:degraded', { ...report, value: 'x' }, 'parity')).toBe(
      false,
    );
    expect(alerts('array_degraded')).toBe(1);
    expect((await health()).conditions).toEqual([
      expect.objectContaining({
        key: 'array:degraded',
        source: 'parity',
        value: 'x',
        eventType: 'array_degraded',
      }),
    ]);
    expect(await s.server.ctx.conditions.clear('array:degraded')).toBe(true);
    expect(await s.server.ctx.conditions.clear('array:degraded')).toBe(false);
    // reporters racing on one key: one onset, one alert
    const raced = await Promise.all(
      [1, 2, 3].map(() => s.server.ctx.conditions.hold('array:degraded', report)),
    );
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(alerts('array_degraded')).toBe(2);
    await s.server.ctx.conditions.clear('array:degraded');
  });

  it('a slow cycle never blocks a request, and cycles never overlap', async () => {
    let release!: () => void;
    let calls = 0;
    probe = () => {
      calls++;
      return new Promise<Observation>((resolve) => {
        release = () => resolve({ conditions: [] });
      });
    };
    const first = s.server.ctx.watchers.runOnce('test');
    const second = s.server.ctx.watchers.runOnce('test');
    await new Promise((r) => setTimeout(r, 20));
    const h = await health();
    expect(h.watchers.find((w: { name: string }) => w.name === 'test').running).toBe(true);
    expect(calls).toBe(1);
    release();
    await first;
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(2);
    release();
    await second;
  });

  it('each loop waits its own interval, taken from the settings at each cycle', async () => {
    const t = recordingTimers();
    probe = async () => ({ conditions: [] });
    s.server.ctx.watchers.useTimers(t.timers);
    expect(t.delays().every((d) => d === FIRST_RUN_DELAY_MS)).toBe(true);
    const runsBefore = (await health()).watchers.find((w: { name: string }) => w.name === 'test').runs;
    t.fire();
    await new Promise((r) => setTimeout(r, 100));
    const after = (await health()).watchers;
    expect(after.find((w: { name: string }) => w.name === 'test').runs).toBe(runsBefore + 1);
    // after its cycle each loop waits its interval: test 7 s, disks 5 s, space 60 s (defaults)
    expect(t.delays().sort((a, b) => a - b)).toEqual(expect.arrayContaining([5000, 7000, 60_000]));
    const settings = (await s.call('GET', '/settings/watchers')).body;
    const put = await s.call('PUT', '/settings/watchers', {
      ...settings,
      intervals: { ...settings.intervals, space: 120 },
    });
    expect(put.status).toBe(200);
    expect(t.delays()).toContain(120_000);
    expect(t.delays()).not.toContain(60_000);
  });
});

describe('GET/PUT /settings/watchers', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers the defaults, refuses bad input with 400 and writes nothing, audits a change', async () => {
    const r = await s.call('GET', '/settings/watchers');
    expect(r.status).toBe(200);
    expect(r.body.intervals.disks).toBe(5);
    expect(r.body.space.poolUsedPercent).toBe(90);
    const before = s.dumpDatabase();
    const bad = await s.call('PUT', '/settings/watchers', {
      ...r.body,
      intervals: { ...r.body.intervals, smart: 1 },
      space: { ...r.body.space, poolUsedPercent: 101 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('bad_request');
    expect(bad.body.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['intervals.smart', 'space.poolUsedPercent']),
    );
    expect(s.dumpDatabase()).toBe(before);
    const ups = { host: '127.0.0.1', port: 3493, name: 'lab' };
    const ok = await s.call('PUT', '/settings/watchers', { ...r.body, ups });
    expect(ok.status).toBe(200);
    expect(ok.body.ups).toEqual(ups);
    expect((await s.call('GET', '/settings/watchers')).body.ups).toEqual(ups);
    const audit = (await s.call('GET', '/audit')).body.entries[0];
    expect(audit).toMatchObject({ operation: 'settings.watchers_update', target: 'settings/watchers' });
  });

  it('GET /health is for the administrator', async () => {
    const viewer = await s.call('POST', '/users', {
      username: 'vic',
      role: 'viewer',
      password: 'viewer password',
    });
    expect(viewer.status).toBe(201);
    const basic = Buffer.from('vic:viewer password').toString('base64');
    const tok = await s.call(
      'POST',
      '/tokens',
      { name: 'v', role: 'viewer' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    expect((await s.call('GET', '/health', undefined, { token: tok.body.token })).status).toBe(403);
    expect((await s.call('GET', '/health', undefined, { token: null })).status).toBe(401);
  });
});
