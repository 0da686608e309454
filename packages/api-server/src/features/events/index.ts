import { pumpEvents, StreamSlots } from '@appliance/common';
import { streamSSE } from 'hono/streaming';
import type { Authenticator } from '../../services/auth.ts';
import { sessionSecret } from '../../services/sessions.ts';
import { defineRoute } from '../../http/route.ts';
import type { Feature } from '../feature.ts';

export const MAX_STREAMS = 64;
export const PING_MS = 15_000;

/** `GET /events`: server-sent events (08 §12), credential re-checked at every ping. */
export function eventsFeature(auth: Authenticator, pingMs = PING_MS): Feature {
  const slots = new StreamSlots(MAX_STREAMS);
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
          const authorization = c.req.header('authorization') ?? '';
          const session = authorization ? null : sessionSecret(c.req.header('cookie'));
          const release = slots.open();
          return streamSSE(c, (stream) =>
            pumpEvents(stream, {
              subscribe: (listener) => ctx.events.subscribe(listener),
              pingMs,
              // A Unix-socket client has no credential to re-check.
              stillValid: () => transport !== 'tcp' || stillValid(auth, authorization, session),
            }).finally(release),
          );
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
