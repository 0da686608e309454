/** Delivery retry schedule (08 §7.4): up to 5 attempts spaced 30 s, 2 min, 10 min, 30 min, then failed. */

export const MAX_ATTEMPTS = 5;
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000] as const;
/** The worker looks for due rows this often. */
export const WORKER_INTERVAL_MS = 30_000;
/** Per attempt of a queued delivery. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The channel test send (08 §7.3). */
export const TEST_SEND_TIMEOUT_MS = 15_000;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryOutcome {
  status: DeliveryStatus;
  /** Attempts made so far, this one included. */
  attempts: number;
  /** RFC 3339; set only while `pending`. */
  nextAttemptAt: string | null;
  lastError: string | null;
}

/**
 * The row's next state after attempt number `attempts` (1-based) ended at `now`. A success is
 * `delivered`; a failure is retried after the next delay of the schedule until the 5th attempt fails.
 */
export function afterAttempt(
  attempts: number,
  now: Date,
  result: { success: true } | { success: false; error: string },
): DeliveryOutcome {
  if (result.success) return { status: 'delivered', attempts, nextAttemptAt: null, lastError: null };
  if (attempts >= MAX_ATTEMPTS)
    return { status: 'failed', attempts, nextAttemptAt: null, lastError: result.error };
  const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0];
  return {
    status: 'pending',
    attempts,
    nextAttemptAt: new Date(now.getTime() + delay).toISOString(),
    lastError: result.error,
  };
}
