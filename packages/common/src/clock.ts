/** Replaceable time source (TanStack-style provider): cores never read the clock themselves. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(at: Date | string): Clock & { set(at: Date | string): void } {
  let current = new Date(at);
  return {
    now: () => new Date(current),
    set(next) {
      current = new Date(next);
    },
  };
}

/** RFC 3339 UTC with milliseconds, the wire format of every time field. */
export const isoMillis = (d: Date): string => d.toISOString();
