import { describe, expect, it } from 'vitest';
import { Lockout } from './lockout.ts';

describe('Lockout', () => {
  it('five failures are free; then 30 s doubling per failure up to 1 h; a success resets', () => {
    let now = 0;
    const l = new Lockout(() => now);
    const keys = ['user:ann', 'addr:1.2.3.4'];
    for (let i = 1; i <= 4; i++) expect(l.fail(keys)).toBe(false);
    expect(l.retryAfter(keys)).toBe(0);
    expect(l.fail(keys)).toBe(true);
    expect(l.retryAfter(keys)).toBe(30);
    expect(l.fail(keys)).toBe(false);
    expect(l.retryAfter(keys)).toBe(60);
    for (let i = 0; i < 20; i++) l.fail(keys);
    expect(l.retryAfter(keys)).toBe(3600);
    now += 3600_000;
    expect(l.retryAfter(keys)).toBe(0);
    l.succeed(['user:ann']);
    // counting starts again: one more failure is free (without the reset it would lock for 1 h)
    expect(l.fail(['user:ann'])).toBe(false);
    expect(l.retryAfter(['user:ann'])).toBe(0);
    // the address key is counted on its own
    expect(l.fail(['addr:1.2.3.4'])).toBe(false);
    expect(l.retryAfter(['addr:1.2.3.4'])).toBe(3600);
  });
});
