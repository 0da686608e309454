import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus, type ServerEvent } from './event-bus.ts';

describe('EventBus', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const listen = (bus: EventBus) => {
    const seen: ServerEvent[] = [];
    const off = bus.subscribe((e) => seen.push(e));
    return { seen, off };
  };

  it('delivers to every subscriber until it unsubscribes', () => {
    const bus = new EventBus();
    const a = listen(bus);
    const b = listen(bus);
    expect(bus.subscribers).toBe(2);
    bus.publish({ type: 'notification', id: 1, data: {} });
    a.off();
    bus.publish({ type: 'notification', id: 2, data: {} });
    expect(a.seen.map((e) => (e.type === 'notification' ? e.id : 0))).toEqual([1]);
    expect(b.seen).toHaveLength(2);
    expect(bus.subscribers).toBe(1);
  });

  it('progress: at most one event per interval, the latest of a busy window at its end, then done', () => {
    const bus = new EventBus();
    const { seen } = listen(bus);
    const p = bus.progress('op', 'parity.sync', 'array', 250);
    const progress = () => seen.map((e) => (e.type === 'progress' ? [e.data.progress.n, e.data.done] : null));
    p.update({ n: 1 });
    p.update({ n: 2 });
    p.update({ n: 3 });
    expect(progress()).toEqual([[1, false]]);
    vi.advanceTimersByTime(250);
    expect(progress()).toEqual([
      [1, false],
      [3, false],
    ]);
    p.update({ n: 4 });
    p.finish({ n: 5 });
    vi.advanceTimersByTime(1000);
    expect(progress()).toEqual([
      [1, false],
      [3, false],
      [5, true],
    ]);
    expect(seen[0]).toMatchObject({ data: { operationId: 'op', operation: 'parity.sync', target: 'array' } });
  });
});
