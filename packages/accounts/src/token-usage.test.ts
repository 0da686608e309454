import { describe, expect, it } from 'vitest';
import { TokenUsage } from './token-usage.ts';

const at = (s: string) => new Date(`2026-11-25T10:${s}.000Z`);
const iso = (s: string) => at(s).toISOString();

function recorder() {
  const batches: Array<Array<{ tokenId: string; at: string }>> = [];
  const usage = new TokenUsage(() => async (uses) => {
    batches.push([...uses]);
  });
  return { usage, batches };
}

describe('TokenUsage', () => {
  it('notes a use at most once a minute per token, in memory; lastUsedAt is the later of stored and noted', () => {
    const { usage, batches } = recorder();
    expect(usage.lastUsedAt('a', null)).toBeNull();
    expect(usage.lastUsedAt('a', iso('00:00'))).toBe(iso('00:00'));
    usage.seen('a', at('00:00'));
    usage.seen('a', at('00:59'));
    expect(usage.lastUsedAt('a', null)).toBe(iso('00:00'));
    usage.seen('a', at('01:00'));
    expect(usage.lastUsedAt('a', null)).toBe(iso('01:00'));
    // a stored time later than the noted one (a restored database) wins
    expect(usage.lastUsedAt('a', iso('05:00'))).toBe(iso('05:00'));
    expect(batches).toEqual([]);
  });

  it('stores the noted uses in one batch when flushed, once', async () => {
    const { usage, batches } = recorder();
    usage.seen('a', at('00:00'));
    usage.seen('b', at('00:10'));
    usage.seen('a', at('01:30'));
    await usage.flush();
    expect(batches).toEqual([
      [
        { tokenId: 'a', at: iso('01:30') },
        { tokenId: 'b', at: iso('00:10') },
      ],
    ]);
    await usage.flush();
    expect(batches).toHaveLength(1);
    usage.seen('b', at('00:30'));
    await usage.flush();
    expect(batches).toHaveLength(1);
    usage.reset();
    expect(usage.lastUsedAt('a', null)).toBeNull();
  });
});
