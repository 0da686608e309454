import { describe, expect, it } from 'vitest';
import { type Condition, decide, groupOnsets, type HeldCondition } from './model.ts';

const cond = (key: string, value: string | null = '1', over: Partial<Condition> = {}): Condition => ({
  key,
  eventType: 'pool_above_threshold',
  subject: 'the pool',
  value,
  title: `t ${key}`,
  message: `m ${key} ${value}`,
  ...over,
});
const held = (c: Condition, since = '2026-01-01T00:00:00.000Z'): HeldCondition => ({
  key: c.key,
  eventType: c.eventType,
  subject: c.subject,
  value: c.value,
  message: c.message,
  since,
});

describe('decide', () => {
  it('raises a new condition once, then neither raises nor updates while it holds unchanged', () => {
    const c = cond('space:pool');
    const first = decide({ conditions: [c] }, [], ['space:']);
    expect(first.onsets).toEqual([c]);
    expect(first.clears).toEqual([]);
    let previous = [held(c)];
    for (let i = 0; i < 1000; i++) {
      const d = decide({ conditions: [c] }, previous, ['space:']);
      expect(d).toEqual({ onsets: [], clears: [], updates: [] });
      previous = [held(c)];
    }
  });

  it('updates a held condition whose value changed, without raising it again', () => {
    const c = cond('space:pool', '91 %');
    const d = decide({ conditions: [cond('space:pool', '95 %')] }, [held(c)], ['space:']);
    expect(d.onsets).toEqual([]);
    expect(d.updates.map((u) => u.value)).toEqual(['95 %']);
  });

  it('clears a held condition that no longer holds, only under its own prefixes', () => {
    const mine = held(cond('space:pool'));
    const other = held(cond('disk:/mnt/disk1'));
    const d = decide({ conditions: [] }, [mine, other], ['space:']);
    expect(d.clears).toEqual([mine]);
  });

  it('keeps held conditions under unobserved prefixes (a sleeping disk, a registry that did not answer)', () => {
    const h = held(cond('smart:S1:ata5'));
    const d = decide({ conditions: [], unobserved: ['smart:S1:'] }, [h], ['smart:']);
    expect(d).toEqual({ onsets: [], clears: [], updates: [] });
  });

  it('ignores conditions outside its prefixes and duplicate keys (first wins)', () => {
    const a = cond('space:pool', '1');
    const d = decide({ conditions: [a, cond('space:pool', '2'), cond('disk:/mnt/disk1')] }, [], ['space:']);
    expect(d.onsets).toEqual([a]);
  });
});

describe('groupOnsets', () => {
  it('makes one notification of the onsets of one event type about one thing', () => {
    const a = cond('smart:S1:ata5', '8', { eventType: 'smart_warning', subject: 'disk1' });
    const b = cond('smart:S1:ata197', '2', { eventType: 'smart_warning', subject: 'disk1' });
    const c = cond('smart:S2:ata5', '1', { eventType: 'smart_warning', subject: 'disk2' });
    const groups = groupOnsets([a, b, c]);
    expect(groups).toHaveLength(2);
    expect(groups[0]!.keys).toEqual(['smart:S1:ata5', 'smart:S1:ata197']);
    expect(groups[0]!.title).toBe('t smart:S1:ata5 (and 1 more)');
    expect(groups[0]!.message).toBe(`${a.message}\n\n${b.message}`);
    expect(groups[1]).toEqual({
      eventType: 'smart_warning',
      title: c.title,
      message: c.message,
      keys: [c.key],
    });
  });
});
