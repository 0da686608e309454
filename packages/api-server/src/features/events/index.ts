import { type CredentialChecks, credentialStillValid, pumpEvents, StreamSlots } from '@appliance/common';
import { streamSSE } from 'hono/streaming';
import { type Authenticator, sessionSecret } from '@appliance/accounts';
import { defineRoute } from '../../http/route.ts';
import type { Feature } from '../feature.ts';

export const MAX_STREAMS = 64;
export const PING_MS = 15_000;

/** `GET /events`: server-sent events (08 §12), credential re-checked at every ping. */
export function eventsFeature(auth: Authenticator, pingMs = PING_MS): Feature {
  const slots = new StreamSlots(MAX_STREAMS);
  const checks: CredentialChecks = {
    session: (secret) => auth.sessions.actor(secret) !== null,
    bearer: (token) => auth.bearer(token),
  };
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
              stillValid: () => transport !== 'tcp' || credentialStillValid(authorization, session, checks),
            }).finally(release),
          );
        },
      }),
    ],
  };
}
