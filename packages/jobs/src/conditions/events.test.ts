/** Where an onset is raised: inside the write when a sink offers it, else after the commit. */
import { describe, expect, it } from 'vitest';
import { ManualTime, MemoryLogger } from '../test-support/index.ts';
import { Conditions } from './conditions.ts';
import { raiseWithinOrAfter } from './events.ts';
import { MemoryConditionStore } from './memory-store.ts';
import type { RaisedEvent } from './ports.ts';

function setup() {
  const log: string[] = [];
  let within: ((tx: null, e: RaisedEvent) => { alertId: number; announce: () => void }) | undefined;
  const store = new MemoryConditionStore();
  const conditions = new Conditions<null>({
    store,
    events: raiseWithinOrAfter<null>({
      within: () => within,
      after: async (e) => void log.push(`after ${e.eventType}`),
    }),
    clock: new ManualTime(),
    logger: new MemoryLogger(),
  });
  const offerWithin = () => {
    within = (_tx, e) => {
      log.push(`within ${e.eventType}`);
      return { alertId: 7, announce: () => log.push(`announce ${e.eventType}`) };
    };
  };
  return { log, store, conditions, offerWithin };
}

const condition = (key: string) => ({
  key,
  eventType: 'pool_above_threshold',
  subject: 'pool',
  value: '95 %',
  title: 'Pool full',
  message: 'The pool is 95 % full.',
});

describe('raiseWithinOrAfter', () => {
  it('without a sink in the write, raised after the commit (no alert recorded with the condition)', async () => {
    const t = setup();
    await t.conditions.observe('space', { conditions: [condition('space:pool')] }, ['space:']);
    expect(t.log).toEqual(['after pool_above_threshold']);
    expect(t.conditions.holding().map((c) => c.key)).toEqual(['space:pool']);
  });

  it('with one (wired later), raised inside the write with its alert id, announced after', async () => {
    const t = setup();
    t.offerWithin();
    await t.conditions.observe('space', { conditions: [condition('space:pool')] }, ['space:']);
    expect(t.log).toEqual(['within pool_above_threshold', 'announce pool_above_threshold']);
    expect(t.store.rows.find((r) => r.key === 'space:pool')?.alertId).toBe(7);
  });

  it('observe: what no longer holds among the owned prefixes clears; others are left alone', async () => {
    const t = setup();
    await t.conditions.observe('space', { conditions: [condition('space:pool')] }, ['space:']);
    await t.conditions.hold('other:x', { ...condition('other:x'), eventType: 'array_degraded' }, 'parity');
    const r = await t.conditions.observe('space', { conditions: [] }, ['space:']);
    expect(r).toEqual({ raised: 0, cleared: 1 });
    expect(t.conditions.holding().map((c) => c.key)).toEqual(['other:x']);
  });
});
