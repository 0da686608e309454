import { describe, expect, it } from 'vitest';
import { createCoalescer } from './coalesce.ts';

/** A run function whose runs finish only when the test says so. */
function gatedRuns() {
  const gates: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  let started = 0;
  const run = () =>
    new Promise<number>((resolve, reject) => {
      started += 1;
      gates.push({ resolve, reject });
    });
  return { run, gates, started: () => started };
}

const tick = () => new Promise((r) => setImmediate(r));
const ticks = async (n = 3) => {
  for (let i = 0; i < n; i++) await tick();
};

describe('createCoalescer (06 §5.3)', () => {
  it('starts a run on the next turn when idle, shared by every request of this turn', async () => {
    const g = gatedRuns();
    const c = createCoalescer(g.run);
    const p = c.request();
    await Promise.resolve();
    const same = Array.from({ length: 31 }, () => c.request());
    expect(g.started()).toBe(0);
    await tick();
    expect(g.started()).toBe(1);
    g.gates[0]!.resolve(1);
    expect(await p).toBe(1);
    expect(await Promise.all(same)).toEqual(Array(31).fill(1));
    expect(g.started()).toBe(1);
  });

  it('uses the injected defer to start queued runs', async () => {
    const g = gatedRuns();
    const starts: Array<() => void> = [];
    const c = createCoalescer(g.run, { defer: (start) => starts.push(start) });
    const p = c.request();
    await tick();
    expect(g.started()).toBe(0);
    starts.shift()!();
    await tick();
    expect(g.started()).toBe(1);
    g.gates[0]!.resolve(5);
    expect(await p).toBe(5);
  });

  it('shares one queued run among every request made while a run is in progress', async () => {
    const g = gatedRuns();
    const c = createCoalescer(g.run);
    const first = c.request();
    await tick();
    const waiters = Array.from({ length: 20 }, () => c.request());
    await tick();
    expect(g.started()).toBe(1);
    g.gates[0]!.resolve(1);
    expect(await first).toBe(1);
    await ticks();
    expect(g.started()).toBe(2);
    g.gates[1]!.resolve(2);
    expect(await Promise.all(waiters)).toEqual(Array(20).fill(2));
    expect(g.started()).toBe(2);
  });

  it('gives the queued run’s waiters its own result, not the failed first run’s', async () => {
    const g = gatedRuns();
    const c = createCoalescer(g.run);
    const first = c.request();
    await tick();
    const second = c.request();
    g.gates[0]!.reject(new Error('boom'));
    await expect(first).rejects.toThrow('boom');
    await ticks();
    g.gates[1]!.resolve(7);
    expect(await second).toBe(7);
  });

  it('starts a fresh run after the queue drained', async () => {
    const g = gatedRuns();
    const c = createCoalescer(g.run);
    const a = c.request();
    await tick();
    g.gates[0]!.resolve(1);
    await a;
    const b = c.request();
    await ticks();
    expect(g.started()).toBe(2);
    g.gates[1]!.resolve(2);
    expect(await b).toBe(2);
    await c.idle();
  });

  it('turns a synchronous throw into a rejection', async () => {
    const c = createCoalescer<number>(() => {
      throw new Error('sync');
    });
    await expect(c.request()).rejects.toThrow('sync');
  });
});
