/** A token's use is noted at most once per this many milliseconds (lastUsedAt is exact to a minute). */
export const TOKEN_USAGE_INTERVAL_MS = 60_000;

/** How often noted uses are written (a crash loses at most this much). */
export const TOKEN_USAGE_FLUSH_MS = 5 * 60_000;

/** The one write the recorder needs: `last_used_at` of these tokens (absent ids change nothing). */
export type RecordUses = (uses: ReadonlyArray<{ tokenId: string; at: string }>) => Promise<unknown>;

/**
 * When each API token was last used (`lastUsedAt`; issue 25: it was never filled in).
 *
 * Bearer authentication is the server's hottest path, so a request only notes its token's use in
 * memory (token id → time), at most once a minute per token: one map lookup, no database read, no
 * write and no timer per request. `GET /tokens` shows the later of the stored and the noted time.
 * The noted times go to `api_tokens.last_used_at` in one write job (the store's `RecordUses`) every
 * `TOKEN_USAGE_FLUSH_MS` (a timer of the service, only when something was noted) and when the server
 * closes, never because of a request: a read-only operation (01 §4.12, 02 preview, 03 §10) or a
 * refused request (00 §4) never causes a write of its own. A crash loses at most the last flush
 * interval (a token still in use is noted again at its next request).
 * The token lookup itself is unchanged, so a revoked token is refused at its next request, and the
 * noted use of a token deleted meanwhile updates no row.
 */
export class TokenUsage {
  /** Token id → epoch milliseconds of the noted use. */
  readonly #noted = new Map<string, number>();
  /** Ids whose noted use is not in the database yet. */
  readonly #unsaved = new Set<string>();
  #flushing: Promise<void> = Promise.resolve();
  readonly #record: () => RecordUses;

  /** A getter, read at each flush (the server fills in its write queue after the authenticator exists). */
  constructor(record: () => RecordUses) {
    this.#record = record;
  }

  /** A successful bearer authentication of `tokenId` at `now`. */
  seen(tokenId: string, now: Date): void {
    const at = now.getTime();
    const last = this.#noted.get(tokenId);
    if (last !== undefined && at >= last && at - last < TOKEN_USAGE_INTERVAL_MS) return;
    this.#noted.set(tokenId, at);
    this.#unsaved.add(tokenId);
  }

  /** The token's last use: the later of the stored time and the one noted since the start. */
  lastUsedAt(tokenId: string, stored: string | null): string | null {
    const noted = this.#noted.get(tokenId);
    if (noted === undefined) return stored;
    const iso = new Date(noted).toISOString();
    return stored === null || iso > stored ? iso : stored;
  }

  /** Writes the noted uses not stored yet, in one write job (the server calls it when it closes). */
  flush(): Promise<void> {
    if (this.#unsaved.size === 0) return this.#flushing;
    const uses = [...this.#unsaved].map((tokenId) => ({
      tokenId,
      at: new Date(this.#noted.get(tokenId)!).toISOString(),
    }));
    this.#unsaved.clear();
    this.#flushing = this.#flushing.then(() => this.#record()(uses)).then(() => undefined);
    return this.#flushing;
  }

  #timer: NodeJS.Timeout | null = null;

  /** Writes the noted uses every `intervalMs` (unref'd: it never keeps the process alive). */
  startFlushing(intervalMs: number): void {
    this.stopFlushing();
    this.#timer = setInterval(() => void this.flush().catch(() => undefined), intervalMs);
    this.#timer.unref();
  }

  stopFlushing(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Forgets every noted use (a config import replaced the tokens). */
  reset(): void {
    this.#noted.clear();
    this.#unsaved.clear();
  }
}
