import { describe, expect, it } from 'vitest';
import { ManualTime, MemoryLogger } from '../test-support/index.ts';
import { CLEARED_RETENTION_MS, Conditions } from './conditions.ts';
import { CollectingConditionEvents, MemoryConditionStore } from './memory-store.ts';
import type { Condition } from './model.ts';
import type { ConditionEvents, RaisedEvent } from './ports.ts';

const report = (value: string) => ({
  eventType: 'array_degraded',
  title: 'The array is degraded',
  message: `disk1 is missing (${value}).`,
  subject: 'the array',
  value,
});
const cond = (key: string, over: Partial<Condition> = {}): Condition => ({
  key,
  eventType: 'smart_warning',
  subject: 'disk1',
  value: '1',
  title: `t ${key}`,
  message: `m ${key}`,
  ...over,
});

function setup(events?: ConditionEvents<null>) {
  const time = new ManualTime('2026-03-01T10:00:00.000Z');
  const store = new MemoryConditionStore();
  const sink = new CollectingConditionEvents();
  const logger = new MemoryLogger();
  const conditions = new Conditions({ store, events: events ?? sink, clock: time, logger });
  return { time, store, sink, logger, conditions };
}

describe('Conditions', () => {
  it('raises a reported condition once, updates it silently while it holds, records its clear', async () => {
    const { time, store, sink, conditions } = setup();
    expect(await conditions.hold('array:degraded', report('a'), 'parity')).toBe(true);
    await time.advance(60_000);
    expect(await conditions.hold('array:degraded', report('b'), 'parity')).toBe(false);
    expect(sink.raised).toEqual([
      { eventType: 'array_degraded', title: 'The array is degraded', message: 'disk1 is missing (a).' },
    ]);
    expect(conditions.holding()).toEqual([
      {
        key: 'array:degraded',
        eventType: 'array_degraded',
        source: 'parity',
        subject: 'the array',
        value: 'b',
        title: 'The array is degraded',
        message: 'disk1 is missing (b).',
        since: '2026-03-01T10:00:00.000Z',
      },
    ]);
    await time.advance(60_000);
    expect(await conditions.clear('array:degraded')).toBe(true);
    expect(await conditions.clear('array:degraded')).toBe(false);
    expect(conditions.holding()).toEqual([]);
    expect(store.rows[0]).toMatchObject({
      clearedAt: '2026-03-01T10:02:00.000Z',
      updatedAt: '2026-03-01T10:02:00.000Z',
    });
    // a new onset after the clear is a new condition: raised again
    expect(await conditions.hold('array:degraded', report('c'))).toBe(true);
    expect(sink.raised).toHaveLength(2);
    expect(conditions.holding()[0]).toMatchObject({ source: 'reported', since: '2026-03-01T10:02:00.000Z' });
  });

  it('reporters racing on one key raise it once (the onset is checked again inside the write)', async () => {
    const { conditions, sink, store } = setup();
    // writes queued as the SQLite write queue does: every reporter reads "not holding" first
    const write = store.write.bind(store);
    store.write = async (fn) => {
      await new Promise((r) => setImmediate(r));
      return write(fn);
    };
    const raced = await Promise.all([1, 2, 3].map(() => conditions.hold('array:degraded', report('x'))));
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(sink.raised).toHaveLength(1);
  });

  it('one event per group of onsets about one thing; the alert id is recorded with each row', async () => {
    const seen: RaisedEvent[] = [];
    let id = 40;
    const { conditions, store } = setup({
      raise: (_tx, event) => {
        seen.push(event);
        id += 1;
        return { alertId: id };
      },
    });
    const r = await conditions.apply('smart', {
      onsets: [cond('smart:S1:ata5'), cond('smart:S1:ata197'), cond('smart:S2:ata5', { subject: 'disk2' })],
      clears: [],
      updates: [],
    });
    expect(r).toEqual({ raised: 3, cleared: 0 });
    expect(seen.map((e) => e.title)).toEqual(['t smart:S1:ata5 (and 1 more)', 't smart:S2:ata5']);
    expect(store.rows.map((row) => [row.key, row.alertId, row.source])).toEqual([
      ['smart:S1:ata5', 41, 'smart'],
      ['smart:S1:ata197', 41, 'smart'],
      ['smart:S2:ata5', 42, 'smart'],
    ]);
    expect(conditions.holding(['smart:S2:']).map((h) => h.key)).toEqual(['smart:S2:ata5']);
  });

  it('forgets conditions cleared longer than the retention ago, at the next clear', async () => {
    const { time, store, conditions } = setup();
    await conditions.hold('a:1', report('1'));
    await conditions.clear('a:1');
    await time.advance(CLEARED_RETENTION_MS - 1000);
    await conditions.hold('a:2', report('2'));
    await conditions.clear('a:2');
    expect(store.rows.map((r) => r.key)).toEqual(['a:1', 'a:2']);
    await time.advance(2000);
    await conditions.hold('a:3', report('3'));
    await conditions.clear('a:3');
    expect(store.rows.map((r) => r.key)).toEqual(['a:2', 'a:3']);
  });

  it('runs what the sink does after the commit only once it committed; its failure is logged, not thrown', async () => {
    const order: string[] = [];
    const { conditions, logger, store } = setup({
      raise: () => {
        order.push('within');
        return {
          alertId: null,
          afterCommit: async () => {
            order.push(`after (${store.rows.length} rows)`);
            throw new Error('the mail server is down');
          },
        };
      },
    });
    expect(await conditions.hold('k:1', report('1'))).toBe(true);
    expect(order).toEqual(['within', 'after (1 rows)']);
    expect(logger.lines).toEqual([
      {
        level: 'error',
        message: 'raising a condition failed',
        fields: { eventType: 'array_degraded', error: 'Error: the mail server is down' },
      },
    ]);
  });

  it('a write that fails raises nothing and records nothing', async () => {
    const { conditions, store } = setup({
      raise: () => {
        throw new Error('the alert could not be written');
      },
    });
    await expect(conditions.hold('k:1', report('1'))).rejects.toThrow('the alert could not be written');
    expect(store.rows).toEqual([]);
    expect(conditions.holding()).toEqual([]);
  });

  it('an empty decision writes nothing', async () => {
    const { conditions, store } = setup();
    let writes = 0;
    const write = store.write.bind(store);
    store.write = (fn) => {
      writes += 1;
      return write(fn);
    };
    expect(await conditions.apply('x', { onsets: [], clears: [], updates: [] })).toEqual({
      raised: 0,
      cleared: 0,
    });
    expect(writes).toBe(0);
  });
});
