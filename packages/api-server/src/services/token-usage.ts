import type { Logger } from '../logger.ts';

/** At most one recorded use per token per this many milliseconds. */
export const TOKEN_USAGE_INTERVAL_MS = 60_000;
/** Uses seen within this window go to the database in one write job. */
export const TOKEN_USAGE_FLUSH_DELAY_MS = 1_000;

/** The one write the recorder needs: `last_used_at` of these tokens (absent ids change nothing). */
export type RecordUses = (uses: ReadonlyArray<{ tokenId: string; at: string }>) => Promise<unknown>;

/**
 * `api_tokens.last_used_at`, recorded off the request's path (issue 25: it was never filled in).
 *
 * Bearer authentication is the server's hottest path, so a request only looks its token up in an
 * in-memory map (token id → time of the last recorded use): no database read, no write, no
 * timer per request. A use at least a minute after the last recorded one is queued, and the queue
 * goes to the database in one write job (`ctx.writes`) a second later, after the responses. Times
 * are therefore exact to within a minute. The lookup of the token itself is unchanged, so a revoked
 * token is refused at its next request, and a queued use of a token revoked meanwhile updates no
 * row. A failed write is logged and the uses are recorded again at their tokens' next request.
 */
export class TokenUsage {
  readonly #lastRecorded = new Map<string, number>();
  #pending = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();
  readonly #record: () => RecordUses;
  readonly #logger: () => Logger;

  /** Getters, read at each use: the context is filled in after the authenticator exists. */
  constructor(record: () => RecordUses, logger: () => Logger) {
    this.#record = record;
    this.#logger = logger;
  }

  /** A successful bearer authentication of `tokenId` at `now` (one map lookup when recent). */
  seen(tokenId: string, now: Date): void {
    const at = now.getTime();
    const last = this.#lastRecorded.get(tokenId);
    if (last !== undefined && at - last < TOKEN_USAGE_INTERVAL_MS && at >= last) return;
    this.#lastRecorded.set(tokenId, at);
    this.#pending.set(tokenId, now.toISOString());
    if (this.#timer === null) {
      this.#timer = setTimeout(() => void this.flush(), TOKEN_USAGE_FLUSH_DELAY_MS);
      this.#timer.unref();
    }
  }

  /** Writes the queued uses now (the timer does this; shutdown and tests call it). */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending.size === 0) return this.#flushing;
    const batch = this.#pending;
    this.#pending = new Map();
    const uses = [...batch].map(([tokenId, at]) => ({ tokenId, at }));
    this.#flushing = this.#flushing
      .then(() => this.#record()(uses))
      .then(
        () => undefined,
        (err: unknown) => {
          for (const { tokenId } of uses) this.#lastRecorded.delete(tokenId);
          this.#logger().warn('token use not recorded', {
            tokens: uses.length,
            error: err instanceof Error ? err.message : String(err),
          });
        },
      );
    return this.#flushing;
  }

  /** Forgets every recorded time (after a config import replaced the tokens). */
  reset(): void {
    this.#lastRecorded.clear();
  }
}
