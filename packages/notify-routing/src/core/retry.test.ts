import { describe, expect, it } from 'vitest';
import { afterAttempt, MAX_ATTEMPTS } from './retry.ts';

const t0 = new Date('2026-11-22T09:00:00.000Z');
const fail = { success: false as const, error: 'HTTP 500 from the endpoint' };

describe('afterAttempt (08 §7.4)', () => {
  it('marks a success delivered', () => {
    expect(afterAttempt(3, t0, { success: true })).toEqual({
      status: 'delivered',
      attempts: 3,
      nextAttemptAt: null,
      lastError: null,
    });
  });

  it('retries after 30 s, 2 min, 10 min, 30 min, then fails after the 5th attempt', () => {
    const next = [1, 2, 3, 4].map((n) => afterAttempt(n, t0, fail));
    expect(next.map((o) => o.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(next.map((o) => (Date.parse(o.nextAttemptAt!) - t0.getTime()) / 1000)).toEqual([
      30, 120, 600, 1800,
    ]);
    expect(next[0]!.lastError).toBe('HTTP 500 from the endpoint');
    expect(afterAttempt(MAX_ATTEMPTS, t0, fail)).toEqual({
      status: 'failed',
      attempts: 5,
      nextAttemptAt: null,
      lastError: 'HTTP 500 from the endpoint',
    });
  });
});
