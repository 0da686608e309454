import type { AppError } from '@appliance/common';
import type { Context } from 'hono';
import type * as v from 'valibot';
import type { AppContext } from '../context.ts';
import type { Actor } from '../services/audit.ts';

export type Role = 'public' | 'viewer' | 'admin';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Transport = 'tcp' | 'unix';
type AnySchema = v.GenericSchema<unknown, unknown>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export interface ResponseSpec {
  description: string;
  /** JSON body schema (documentation; the OpenAPI document is generated from it). */
  schema?: AnySchema;
  /** Non-JSON answers (an archive, an event stream). */
  contentType?: string;
}

export interface RouteSpec<
  P extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  B extends AnySchema | undefined = undefined,
> {
  method: Method;
  /** Hono path under /api/v1, e.g. `/shares/:name/permissions`. */
  path: string;
  /** Fail closed: a route without a role is refused at registration. */
  role: Role;
  summary: string;
  tags: string[];
  params?: P;
  query?: Q;
  /**
   * JSON body schema. Use strict objects (unknown fields → 400). A route with a body schema needs
   * a body: an absent (empty) one is `400 bad_request`, unless `emptyBody: 'object'`.
   */
  body?: B;
  /**
   * `object`: an absent (empty) body counts as `{}`, for the operations whose contract says so
   * (03 §6 and §11 plans, 07 §6.1 format); the schema then says what is missing.
   */
  emptyBody?: 'object';
  /** `raw`: the handler reads `c.req.raw.body` itself (multipart); it enforces its own limit. */
  bodyKind?: 'json' | 'raw';
  /**
   * Bytes; default 64 KiB for JSON. A raw route with a limit has a declared Content-Length over it
   * refused at step 1, before the credential (its handler still enforces the limit while streaming).
   */
  bodyLimit?: number;
  /** The error of step 1 for this route (default `413 request_too_large`). */
  tooLarge?: () => AppError;
  /** Not behind the setup gate (setup routes, the API document). */
  ungated?: boolean;
  /** Served on the Unix socket before an admin exists (config import preview and import). */
  socketBeforeSetup?: boolean;
  /**
   * Served on the Unix socket only (a local password reset): over TCP the route does not exist,
   * `404 not_found` before any other check.
   */
  socketOnly?: boolean;
  /**
   * The import lock (services/operation-gate.ts): every non-GET route passes it, and answers
   * `409 import_in_progress` during an import; `self` = the route manages it (the import itself).
   */
  gate?: 'self';
  /** Also accept `Authorization: Basic` (only POST /tokens). */
  allowBasic?: boolean;
  responses: Record<number, ResponseSpec>;
  handler: (input: HandlerInput<Out<P>, Out<Q>, Out<B>>) => Promise<HandlerResult> | HandlerResult;
}

export interface HandlerInput<P, Q, B> {
  ctx: AppContext;
  /** The caller; `null` only on public routes called without a credential. */
  actor: Actor | null;
  params: P;
  query: Q;
  body: B;
  transport: Transport;
  c: Context;
}

export type HandlerResult = Response | { status: number; body?: unknown; headers?: Record<string, string> };

// biome-ignore lint/suspicious/noExplicitAny: routes of every shape live in one list
export type AnyRoute = RouteSpec<any, any, any>;

/** Identity function that gives a route's handler its inferred parameter, query and body types. */
export function defineRoute<
  P extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  B extends AnySchema | undefined = undefined,
>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

export const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });
export const created = (body: unknown): HandlerResult => ({ status: 201, body });
export const noContent = (): HandlerResult => ({ status: 204 });
/** 202 for a started job: its view (or the contract's answer) and `Location: /api/v1/jobs/<id>`. */
export const accepted = (job: { id: string }, body: unknown = job): HandlerResult => ({
  status: 202,
  body,
  headers: { location: `/api/v1/jobs/${job.id}` },
});
