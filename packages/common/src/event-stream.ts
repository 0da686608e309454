/**
 * One `GET /events` stream (08 §12) over the transport's server-sent-events writer: the bus's
 * events as `notification` (with the alert id) and `progress` messages, a comment ping every
 * `pingMs` that first re-checks the credential, and a cap on the streams open at once.
 */
import { AppError } from './errors.ts';
import type { ServerEvent } from './event-bus.ts';

/** What the stream needs from the transport (Hono's `streamSSE` stream is one). */
export interface SseSink {
  write(text: string): Promise<unknown>;
  writeSSE(message: { event: string; data: string; id?: string }): Promise<unknown>;
  onAbort(listener: () => void): void;
}

export interface EventStreamOptions {
  subscribe(listener: (event: ServerEvent) => void): () => void;
  pingMs: number;
  /** Asked at every ping: false ends the stream (the session ended or the token was revoked). */
  stillValid(): boolean;
}

/** The message an event becomes on the wire. */
export const sseMessage = (e: ServerEvent): { event: string; data: string; id?: string } =>
  e.type === 'notification'
    ? { event: 'notification', data: JSON.stringify(e.data), id: String(e.id) }
    : { event: 'progress', data: JSON.stringify(e.data) };

/** Writes the bus's events to `stream` until the client leaves or the credential is gone. */
export async function pumpEvents(stream: SseSink, options: EventStreamOptions): Promise<void> {
  const queue: Array<{ event: string; data: string; id?: string }> = [];
  let wake: (() => void) | null = null;
  const unsubscribe = options.subscribe((e) => {
    queue.push(sseMessage(e));
    wake?.();
  });
  let closed = false;
  stream.onAbort(() => {
    closed = true;
    wake?.();
  });
  const timer = setInterval(() => {
    queue.push({ event: '__ping', data: '' });
    wake?.();
  }, options.pingMs);
  try {
    await stream.write(': connected\n\n');
    while (!closed) {
      if (queue.length === 0) await new Promise<void>((r) => (wake = r));
      wake = null;
      for (const item of queue.splice(0)) {
        if (item.event === '__ping') {
          if (!options.stillValid()) {
            closed = true;
            break;
          }
          await stream.write(': ping\n\n');
        } else {
          await stream.writeSSE({ event: item.event, data: item.data, ...(item.id ? { id: item.id } : {}) });
        }
      }
    }
  } finally {
    clearInterval(timer);
    unsubscribe();
  }
}

/** How the host checks the credentials a stream was opened with. */
export interface CredentialChecks {
  /** Whether the session of this cookie secret is still open. */
  session(secret: string): boolean;
  /** Accepts a bearer token still valid; throws when it is not (revoked, expired, unknown). */
  bearer(token: string): unknown;
}

/**
 * Whether a stream's credential still holds at a ping: the session cookie's session, else the
 * `Authorization: Bearer` token. Any other header (Basic) is not re-checked: the stream ends.
 */
export function credentialStillValid(
  authorization: string,
  session: string | null,
  checks: CredentialChecks,
): boolean {
  if (session !== null) return checks.session(session);
  const m = /^bearer\s+(.+)$/i.exec(authorization);
  if (!m) return false;
  try {
    checks.bearer(m[1]!.trim());
    return true;
  } catch {
    return false;
  }
}

/** At most `max` streams open at once; `open()` refuses the next one with `too_busy` (503). */
export class StreamSlots {
  private openNow = 0;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
  /** Takes a slot; the function returned gives it back. */
  open(): () => void {
    if (this.openNow >= this.max)
      throw new AppError(
        503,
        'too_busy',
        `At most ${this.max} event streams may be open; close one and retry.`,
      );
    this.openNow++;
    return () => {
      this.openNow--;
    };
  }
}
