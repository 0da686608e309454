import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { TokenUsage } from './token-usage.ts';

const at = (s: string) => new Date(`2026-11-25T10:${s}.000Z`);

function recorder(fail = false) {
  const batches: Array<Array<{ tokenId: string; at: string }>> = [];
  const logs: string[] = [];
  const usage = new TokenUsage(
    () => async (uses) => {
      batches.push([...uses]);
      if (fail) throw new Error('disk full');
    },
    () => createLogger((line) => logs.push(line)),
  );
  return { usage, batches, logs };
}

describe('TokenUsage', () => {
  it('queues a use at most once a minute per token and writes the queue as one batch', async () => {
    const { usage, batches } = recorder();
    usage.seen('a', at('00:00'));
    usage.seen('b', at('00:10'));
    usage.seen('a', at('00:59'));
    expect(batches).toEqual([]);
    await usage.flush();
    expect(batches).toEqual([
      [
        { tokenId: 'a', at: '2026-11-25T10:00:00.000Z' },
        { tokenId: 'b', at: '2026-11-25T10:00:10.000Z' },
      ],
    ]);
    usage.seen('a', at('00:59'));
    usage.seen('b', at('01:09'));
    usage.seen('b', at('01:10'));
    usage.seen('a', at('01:00'));
    await usage.flush();
    expect(batches.at(-1)).toEqual([
      { tokenId: 'b', at: '2026-11-25T10:01:10.000Z' },
      { tokenId: 'a', at: '2026-11-25T10:01:00.000Z' },
    ]);
    await usage.flush();
    expect(batches).toHaveLength(2);
  });

  it('logs a failed write and records the use again at the next request', async () => {
    const { usage, batches, logs } = recorder(true);
    usage.seen('a', at('00:00'));
    await usage.flush();
    expect(logs.some((l) => l.includes('token use not recorded') && l.includes('disk full'))).toBe(true);
    usage.seen('a', at('00:01'));
    await usage.flush();
    expect(batches.map((b) => b.map((u) => u.at))).toEqual([
      ['2026-11-25T10:00:00.000Z'],
      ['2026-11-25T10:00:01.000Z'],
    ]);
  });
});
