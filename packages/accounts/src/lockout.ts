/**
 * Basic-credential lock-out (08 §3.3), per lowercase username and per source address: 5
 * consecutive failures are free; then each attempt is refused for 30 s, doubling per further
 * failure up to 1 h; a success resets. In memory (a restart forgets, by design).
 */
/** The lock-out key of a username (case-insensitive). */
export const userLockKey = (username: string): string => `user:${username.toLowerCase()}`;

export class Lockout {
  private readonly entries = new Map<string, { failures: number; lockedUntil: number }>();
  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Seconds to wait, or 0 when the attempt may go ahead. */
  retryAfter(keys: string[]): number {
    const t = this.now();
    let wait = 0;
    for (const k of keys) {
      const e = this.entries.get(k);
      if (e && e.lockedUntil > t) wait = Math.max(wait, Math.ceil((e.lockedUntil - t) / 1000));
    }
    return wait;
  }

  /** Records a failure; returns true when this failure crossed the threshold (raise an event). */
  fail(keys: string[]): boolean {
    let crossed = false;
    for (const k of keys) {
      const e = this.entries.get(k) ?? { failures: 0, lockedUntil: 0 };
      e.failures++;
      if (e.failures >= 5) {
        const seconds = Math.min(3600, 30 * 2 ** (e.failures - 5));
        e.lockedUntil = this.now() + seconds * 1000;
        if (e.failures === 5) crossed = true;
      }
      this.entries.set(k, e);
    }
    if (this.entries.size > 10_000) this.evict();
    return crossed;
  }

  succeed(keys: string[]): void {
    for (const k of keys) this.entries.delete(k);
  }

  private evict(): void {
    const t = this.now();
    for (const [k, e] of this.entries) if (e.lockedUntil < t - 3600_000) this.entries.delete(k);
  }
}
