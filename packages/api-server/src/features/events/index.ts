import { AppError } from '@appliance/common';
import { streamSSE } from 'hono/streaming';
import { type Authenticator, sessionSecret } from '@appliance/accounts';
import { defineRoute } from '../../http/route.ts';
import type { Feature } from '../feature.ts';

export const MAX_STREAMS = 64;
export const PING_MS = 15_000;

/** `GET /events`: server-sent events (08 §12), credential re-checked at every ping. */
export function eventsFeature(auth: Authenticator, pingMs = PING_MS): Feature {
  let open = 0;
  return {
    name: 'events',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/events',
        role: 'viewer',
        summary: 'Server-sent events: notification and progress',
        tags: ['events'],
        responses: { 200: { description: 'text/event-stream', contentType: 'text/event-stream' } },
        handler: ({ ctx, c, transport }) => {
          if (open >= MAX_STREAMS)
            throw new AppError(
              503,
              'too_busy',
              `At most ${MAX_STREAMS} event streams may be open; close one and retry.`,
            );
          const authorization = c.req.header('authorization') ?? '';
          const session = authorization ? null : sessionSecret(c.req.header('cookie'));
          open++;
          return streamSSE(c, async (stream) => {
            const queue: Array<{ event: string; data: string; id?: string }> = [];
            let wake: (() => void) | null = null;
            const unsubscribe = ctx.events.subscribe((e) => {
              queue.push(
                e.type === 'notification'
                  ? { event: 'notification', data: JSON.stringify(e.data), id: String(e.id) }
                  : { event: 'progress', data: JSON.stringify(e.data) },
              );
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
            }, pingMs);
            try {
              await stream.write(': connected\n\n');
              while (!closed) {
                if (queue.length === 0) await new Promise<void>((r) => (wake = r));
                wake = null;
                for (const item of queue.splice(0)) {
                  if (item.event === '__ping') {
                    if (transport === 'tcp' && !stillValid(auth, authorization, session)) {
                      closed = true;
                      break;
                    }
                    await stream.write(': ping\n\n');
                  } else {
                    await stream.writeSSE({
                      event: item.event,
                      data: item.data,
                      ...(item.id ? { id: item.id } : {}),
                    });
                  }
                }
              }
            } finally {
              clearInterval(timer);
              unsubscribe();
              open--;
            }
          });
        },
      }),
    ],
  };
}

function stillValid(auth: Authenticator, authorization: string, session: string | null): boolean {
  if (session !== null) return auth.sessions.actor(session) !== null;
  const m = /^bearer\s+(.+)$/i.exec(authorization);
  if (!m) return false;
  try {
    auth.bearer(m[1]!.trim());
    return true;
  } catch {
    return false;
  }
}
