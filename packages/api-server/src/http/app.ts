import { AppError, badRequest, clientDisconnected, type ValidationIssue } from '@appliance/common';
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { type Authenticator, checkSetupGate, roleAtLeast } from '@appliance/accounts';
import { allowedMethods } from './allowed-methods.ts';
import {
  errorResponse,
  forbidden,
  methodNotAllowed,
  routeLabel,
  routeNotFound,
  tooLarge,
  unauthorized,
} from './errors.ts';
import { DotSegmentRouter, dotSegmentRefusal } from './dot-segments.ts';
import { arrayInPlaceOfObject } from './json-objects.ts';
import { authenticate } from './session-auth.ts';
import type { AnyRoute, HandlerResult, Transport } from './route.ts';

export const API_PREFIX = '/api/v1';
export const JSON_BODY_LIMIT = 64 * 1024;

export type AppEnv = {
  Bindings: {
    transport?: Transport;
    remoteAddress?: string;
    /** Node's request, from @hono/node-server (listener.ts): its `url` is the target as the client sent it. */
    incoming?: IncomingMessage;
  };
};

/**
 * Composes the routes into one Hono app. Every route goes through the same order of checks
 * (00 §3, 04 §2.1): body size → setup gate → cross-origin guard → credential → role → path and
 * query parameters → body →
 * the operation. Errors become responses in one place (errors.ts).
 *
 * Before either a route or the 404 answer runs, the raw request target is judged for dot segments
 * (dot-segments.ts): the URL Hono routes on has them resolved already, so a request holding one is
 * answered by the route its raw segments match (whose step 6 refuses the parameter), or 404.
 * A request no route of its method matches is `405 method_not_allowed` with `Allow` when routes of
 * other methods serve its path (allowed-methods.ts), else `404 not_found`; neither runs a route's
 * checks (there is no route).
 */
export function createApp(
  ctx: AppContext,
  auth: Authenticator,
  routes: AnyRoute[],
  /** Answers a GET or HEAD outside `/api/` (the web UI, web-ui.ts); without it such a path is 404. */
  outsideApi?: (c: Context<AppEnv>) => Promise<Response>,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dots = new DotSegmentRouter(routes, API_PREFIX);
  // An error answered outside a route's own checks (no route, a dot segment, a throw past them).
  const refused = (c: Context<AppEnv>, label: string, err: unknown) =>
    logged(ctx, c, label, performance.now(), errorResponse(c, err, ctx.logger));
  const notFound = (c: Context<AppEnv>, label: string) => refused(c, label, routeNotFound());
  // No route of this method: a path other methods serve is 405 with `Allow`, any other is 404.
  const noRoute = (c: Context<AppEnv>) => {
    const methods = allowedMethods(app, c.req.path);
    if (!methods) return notFound(c, routeLabel(c));
    c.header('Allow', methods.join(', '));
    return refused(c, '(none)', methodNotAllowed(c.req.method, methods));
  };
  const dispatch = (c: Context<AppEnv>, route: AnyRoute | null): Promise<Response> | Response => {
    const verdict = dots.judge(c.req.method, c.env?.incoming?.url);
    if (verdict === undefined) return route ? handle(ctx, auth, route, c) : noRoute(c);
    if (verdict === null) return notFound(c, '(none)');
    return handle(ctx, auth, verdict.route, c, verdict.params);
  };

  for (const route of routes) {
    if (!route.role) throw new Error(`route ${route.method} ${route.path} declares no role`);
    app.on(route.method, `${API_PREFIX}${route.path}`, (c) => dispatch(c, route));
  }

  app.notFound((c) => {
    const p = c.req.path;
    const read = c.req.method === 'GET' || c.req.method === 'HEAD';
    // a target holding a dot segment (`/%2e/v1/…`) is judged by the API's rules, never the UI's
    const raw = c.env?.incoming?.url ?? p;
    const dotted = /(^|\/)(\.|%2e){1,2}(\/|\?|$)/i.test(raw);
    if (outsideApi && read && !dotted && p !== '/api' && !p.startsWith('/api/')) return outsideApi(c);
    return dispatch(c, null);
  });
  app.onError((err, c) => refused(c, routeLabel(c), err));
  return app;
}

async function handle(
  ctx: AppContext,
  auth: Authenticator,
  route: AnyRoute,
  c: Context<AppEnv>,
  /** Parameters whose raw segment was a dot segment (refused at step 6). */
  dotParams?: string[],
): Promise<Response> {
  const started = performance.now();
  const transport: Transport = c.env?.transport ?? 'tcp';
  let response: Response;
  try {
    // 0. a route served on the Unix socket only does not exist over TCP
    if (route.socketOnly && transport !== 'unix') throw routeNotFound();
    // 1. body size
    const limit = route.bodyLimit ?? JSON_BODY_LIMIT;
    const declared = Number(c.req.header('content-length') ?? '0');
    const checked = route.bodyKind !== 'raw' || route.bodyLimit !== undefined;
    if (checked && Number.isFinite(declared) && declared > limit) {
      // the body is never read: the connection cannot carry another request
      c.header('Connection', 'close');
      throw route.tooLarge?.() ?? tooLarge(limit);
    }
    let rawBody: Uint8Array | null = null;
    if (route.body && route.bodyKind !== 'raw') {
      try {
        rawBody = await readLimited(c, limit);
      } catch (err) {
        // A body that grew past the limit was not read to its end: the connection cannot carry
        // another request.
        c.header('Connection', 'close');
        throw err;
      }
    }

    // 2. setup gate
    checkSetupGate(auth, route, transport === 'unix');

    // 3. cross-origin write guard (04 §2.1 puts it before the credential)
    if (c.req.method !== 'GET' && crossOrigin(c)) {
      throw forbidden('Cross-origin writes are refused; call the API from the appliance web UI or a script.');
    }

    // 4. credential (a browser session's write must also prove it comes from the UI: session-auth.ts)
    const actor = await authenticate(auth, route, c, transport);

    // 5. role
    if (route.role !== 'public') {
      if (!actor) throw unauthorized();
      if (!roleAtLeast(actor.role, route.role)) throw forbidden();
    }

    // 6. path and query parameters
    if (dotParams) throw dotSegmentRefusal(dotParams);
    const params = route.params ? validate(route.params, c.req.param(), '') : undefined;
    const query = route.query ? validate(route.query, c.req.query(), '') : undefined;

    // 7. body
    const body =
      route.body && route.bodyKind !== 'raw'
        ? validateBody(route.body, parseJson(rawBody!, c, route.emptyBody === 'object'))
        : undefined;

    // 8. the operation, through the import lock unless it is a plain read (08 §14)
    const leave = c.req.method === 'GET' || route.gate === 'self' ? null : ctx.gate.enter();
    try {
      const result = await route.handler({ ctx, actor, params, query, body, transport, c });
      response = toResponse(c, result);
    } finally {
      leave?.();
    }
  } catch (err) {
    response = errorResponse(c, err, ctx.logger);
  }
  return logged(ctx, c, `${API_PREFIX}${route.path}`, started, response);
}

/**
 * One JSON log line per request (00 §9): method, route pattern (the route that answered, `(none)`
 * for a 404), status, duration, listener.
 */
function logged(
  ctx: AppContext,
  c: Context<AppEnv>,
  route: string,
  started: number,
  response: Response,
): Response {
  ctx.logger.info('request', {
    method: c.req.method,
    route,
    status: response.status,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    listener: c.env?.transport ?? 'tcp',
  });
  return response;
}

function crossOrigin(c: Context<AppEnv>): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  const own = new URL(c.req.url).origin;
  return origin !== own;
}

async function readLimited(c: Context<AppEnv>, limit: number): Promise<Uint8Array> {
  // From a listener, read Node's request directly: building a web ReadableStream (or an async
  // iterator) for every small JSON body costs more than the rest of a routing write.
  const incoming = c.env?.incoming;
  if (incoming && !incoming.readableEnded) return readIncoming(incoming, limit);
  const req = c.req.raw;
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The whole body of a Node request, refused past `limit` bytes (reading then stops). */
function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limit) {
        // Stop reading; the answer carries `Connection: close`, so the rest is never read.
        done();
        incoming.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    // The request errored (reset) or closed before its end: the client went away mid-body.
    const onError = () => {
      done();
      reject(clientDisconnected());
    };
    const onClose = () => {
      done();
      reject(clientDisconnected());
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON object of a body. An absent (empty) body is refused (issue 25: a POST with a JSON
 * content type and no body was taken as `{}` and installed a stack with every default), except on
 * a route whose contract counts it as `{}` (`emptyBody: 'object'`: 03 §6, 07 §6.1).
 */
function parseJson(bytes: Uint8Array, c: Context, emptyIsObject: boolean): unknown {
  if (bytes.byteLength === 0) {
    if (emptyIsObject) return {};
    throw badRequest([
      { path: '', message: 'send the body as a JSON object with Content-Type: application/json' },
    ]);
  }
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type.trim())) {
    throw badRequest([{ path: '', message: 'send the body as JSON with Content-Type: application/json' }]);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw badRequest([{ path: '', message: 'the body is not valid UTF-8' }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest([{ path: '', message: 'the body is not valid JSON' }]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest([{ path: '', message: 'the body must be a JSON object' }]);
  }
  return value;
}

export function validate<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const issues: ValidationIssue[] = result.issues.slice(0, 20).map((issue) => {
    const dotted = v.getDotPath(issue);
    const unknownField = issue.type === 'strict_object' && issue.expected === 'never';
    return {
      path: prefix + (dotted ?? ''),
      message: unknownField ? 'unknown field; remove it' : issue.message,
    };
  });
  throw badRequest(issues);
}

/** A JSON body: the schema, then no array where the schema expects an object (json-objects.ts). */
function validateBody<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const output = validate(schema, input, '');
  const array = arrayInPlaceOfObject(schema, input);
  if (array) throw badRequest([array]);
  return output;
}

function toResponse(c: Context, result: HandlerResult): Response {
  if (result instanceof Response) return result;
  if (result.headers) for (const [k, val] of Object.entries(result.headers)) c.header(k, val);
  if (result.status === 204 || result.body === undefined) return c.body(null, result.status as 204);
  return c.json(result.body as object, result.status as 200);
}

export { AppError };
