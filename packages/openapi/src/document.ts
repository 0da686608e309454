/**
 * The OpenAPI 3.1 document of a set of routes, generated from the same valibot schemas that
 * validate their requests: path and query parameters, the request body, the declared answers, and
 * the error answers every operation may give (unless it declares its own for that status).
 */
import type * as v from 'valibot';
import { type Json, schemaOf } from './json-schema.ts';

/** A route as documented (a server's route description satisfies it). */
export interface DocumentedRoute {
  method: string;
  /** Hono style: `/jobs/:id`. */
  path: string;
  summary: string;
  tags: string[];
  params?: v.GenericSchema;
  query?: v.GenericSchema;
  body?: v.GenericSchema;
  /** `object`: an absent body counts as `{}` (the body is then not required). */
  emptyBody?: 'object';
  /** `raw`: the body is multipart/form-data, else JSON. */
  bodyKind?: 'json' | 'raw';
  responses: Record<string | number, { description: string; schema?: v.GenericSchema; contentType?: string }>;
}

export interface DocumentOptions<R extends DocumentedRoute> {
  /** Prefixed to every route's path (`/api/v1`). */
  prefix: string;
  info: { title: string; version: string; description: string };
  securitySchemes: Record<string, Json>;
  /** The schema of an error answer (`components.schemas.Error`). */
  errorSchema: v.GenericSchema;
  /** The error answers (status → description) every operation documents, unless it declares its own. */
  errors: Record<string, string>;
  /** Statuses of `errors` a route does not document (a public route is never 401 or 403). */
  omitErrors(route: R): readonly string[];
  /** The operation's `x-` fields, after its tags. */
  extensions(route: R): Json;
  /** The operation's security requirements. */
  security(route: R): Json[];
}

/** `get /jobs/:id` → `getJobsId`. */
export const operationId = (method: string, path: string): string =>
  `${method.toLowerCase()}${path.replace(/[/:-]+(.)?/g, (_m, ch: string | undefined) => (ch ?? '').toUpperCase())}`;

const errorRef = { $ref: '#/components/schemas/Error' };

function parametersOf(route: DocumentedRoute): Json[] {
  const parameters: Json[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = schemaOf(schema, 'input');
    const props = (json['properties'] ?? {}) as Record<string, Json>;
    const required = new Set((json['required'] ?? []) as string[]);
    for (const [name, s] of Object.entries(props)) {
      parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: s });
    }
  }
  return parameters;
}

function responsesOf<R extends DocumentedRoute>(route: R, options: DocumentOptions<R>): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      ...(spec.schema
        ? { content: { 'application/json': { schema: schemaOf(spec.schema, 'output') } } }
        : spec.contentType
          ? { content: { [spec.contentType]: {} } }
          : {}),
    };
  }
  const omitted = options.omitErrors(route);
  for (const [status, description] of Object.entries(options.errors)) {
    if (omitted.includes(status)) continue;
    responses[status] ??= { description, content: { 'application/json': { schema: errorRef } } };
  }
  return responses;
}

export function buildDocument<R extends DocumentedRoute>(
  routes: readonly R[],
  options: DocumentOptions<R>,
): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = `${options.prefix}${route.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters = parametersOf(route);
    const op: Json = {
      operationId: operationId(route.method, route.path),
      summary: route.summary,
      tags: route.tags,
      ...options.extensions(route),
      security: options.security(route),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              // An absent body is 400, except where the contract counts it as `{}` (emptyBody).
              required: route.emptyBody !== 'object',
              content: {
                [route.bodyKind === 'raw' ? 'multipart/form-data' : 'application/json']: {
                  schema: schemaOf(route.body, 'input'),
                },
              },
            },
          }
        : {}),
      responses: responsesOf(route, options),
    };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: options.info,
    servers: [{ url: '/' }],
    components: {
      securitySchemes: options.securitySchemes,
      schemas: { Error: schemaOf(options.errorSchema, 'output') },
    },
    paths,
  };
}
