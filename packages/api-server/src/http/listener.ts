/**
 * The HTTP adapter of both listeners (TCP and the Unix socket): @hono/node-server's request listener
 * in front of the app (docs/decisions/http.md, "The HTTP adapter"). What the service adds to it:
 * - the bindings of each listener (transport, the client's address) beside Node's request;
 * - a target or Host that cannot form a URL (the library's `RequestError`) is `400 bad_request` with
 *   a sentence saying what to send, instead of the library's empty 400;
 * - a handler that rejects (a bug: the app answers its own errors in `onError`) is logged and a
 *   `500 internal`;
 * - the app's answer always reaches the library as a promise: the library writes a Response given
 *   synchronously outside its error handling (2.1.8), so a header value Node refuses would reject the
 *   listener's promise, which nobody awaits, and end the process;
 * - whatever the library's listener still rejects with is logged and answered 500 (or the
 *   connection closed when the head was out), never left unhandled;
 * - at most PIPELINE_DEPTH requests of one connection are in the app at a time; the connection's
 *   later pipelined requests wait their turn, and are dropped with it when it closes.
 * The library itself answers an error while writing an answer (a header value Node refuses, a body
 * already read) with a 500, logs it on stderr and keeps serving (src/http/listener.test.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, type HttpBindings, RequestError } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from '../logger.ts';
import type { AppEnv } from './app.ts';
import { INTERNAL } from './errors.ts';

/** The sentence for each refusal of the library's URL builder (its messages, as of 2.1). */
const BAD_TARGET: Record<string, string> = {
  'Backslash in request path':
    'The request path holds a backslash; send "/" between segments (or %5C inside one).',
  'Missing host header': 'The request has no Host header; send one (HTTP/1.1 requires it).',
  'Invalid host header': 'The Host header is not a host name; send host[:port].',
  'Invalid absolute URL': 'The absolute request target is not a valid http(s) URL.',
};
const BAD_TARGET_OTHER = 'The request target or the Host header cannot form a URL; check both.';

export type ListenerBindings = Pick<AppEnv['Bindings'], 'transport' | 'remoteAddress'>;

export function nodeListener(
  app: Hono<AppEnv>,
  logger: Logger,
  bindings: (incoming: IncomingMessage) => ListenerBindings,
): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  const listener = getRequestListener(
    async (request, env) => {
      const { incoming } = env as HttpBindings;
      return app.fetch(request, { ...env, ...bindings(incoming) });
    },
    {
      errorHandler: (err) => {
        if (err instanceof RequestError)
          return Response.json(
            { code: 'bad_request', message: BAD_TARGET[err.message] ?? BAD_TARGET_OTHER },
            { status: 400 },
          );
        logger.error('unexpected failure', { error: message(err) });
        return Response.json(INTERNAL, { status: 500 });
      },
    },
  ) as (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;
  const answer = (incoming: IncomingMessage, outgoing: ServerResponse) =>
    listener(incoming, outgoing).catch((err: unknown) => {
      logger.error('answer not written', { method: incoming.method, error: message(err) });
      if (outgoing.headersSent) outgoing.destroy();
      else outgoing.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(INTERNAL));
    });
  return (incoming, outgoing) => {
    const socket = incoming.socket;
    let lane = lanes.get(socket);
    if (!lane) {
      lane = { active: 0, waiting: [] };
      lanes.set(socket, lane);
    }
    const run = () => {
      lane.active += 1;
      let done = false;
      const next = () => {
        if (done) return;
        done = true;
        lane.active -= 1;
        // A connection that closed takes its waiting requests with it: nobody can receive their answers.
        if (socket.destroyed) lane.waiting.length = 0;
        else lane.waiting.shift()?.();
      };
      outgoing.once('finish', next);
      outgoing.once('close', next);
      void answer(incoming, outgoing);
    };
    if (lane.active < PIPELINE_DEPTH) run();
    else lane.waiting.push(run);
  };
}

/**
 * Requests of one connection handed to the app at a time (issue 32, item 13). HTTP/1.1 answers
 * pipelined requests in order, so a later one waits for the earlier answers anyway; waiting here,
 * before the app, means that a client that pipelines many and reads none costs the requests Node
 * parsed before it stopped reading that connection (its outgoing buffer full), not the app's work
 * and answer for each: 50 such connections grew the service by ~500 MiB and kept another client
 * waiting 7–12 s without it, ~240 MiB and 0.5–2 s with it.
 */
const PIPELINE_DEPTH = 8;
const lanes = new WeakMap<object, { active: number; waiting: Array<() => void> }>();
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
