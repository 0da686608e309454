import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { API_PREFIX } from '../../http/app.ts';
import type { AnyRoute } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';

type Json = Record<string, unknown>;

const schemaOf = (schema: v.GenericSchema, mode: 'input' | 'output'): Json =>
  toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: mode,
    errorMode: 'ignore',
    // An object's properties that are such pipes get their items documented (the converter calls
    // no override for a pipe itself, and documents only a pipe's first schema in input mode).
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      const entries = (valibotSchema as { entries?: Record<string, unknown> }).entries;
      const properties = (jsonSchema as Json)['properties'] as Record<string, Json> | undefined;
      if (!entries || !properties) return undefined;
      for (const [key, entry] of Object.entries(entries)) {
        const items = laterArrayItems(entry);
        if (!items || !properties[key]) continue;
        const { $schema: _, ...itemSchema } = schemaOf(items, mode);
        properties[key] = { ...properties[key], items: itemSchema };
      }
      return jsonSchema;
    },
  }) as Json;

/**
 * The item schema of a pipe that checks an array's size before its items (`v.pipe(v.array(v.unknown()),
 * v.maxLength(n), v.array(item))`, so that a huge array is one issue): the converter documents only
 * the first schema of a pipe, which would leave the items `{}`.
 */
function laterArrayItems(schema: unknown): v.GenericSchema | null {
  const pipe = (schema as { pipe?: unknown[] }).pipe;
  if (!Array.isArray(pipe)) return null;
  const later = pipe
    .slice(1)
    .find(
      (p) =>
        (p as { kind?: string; type?: string }).kind === 'schema' &&
        (p as { type?: string }).type === 'array',
    );
  return (later as { item?: v.GenericSchema } | undefined)?.item ?? null;
}

const errorRef = { $ref: '#/components/schemas/Error' };

/** The OpenAPI 3.1 document, generated from the same valibot schemas that validate requests. */
export function buildOpenApi(routes: AnyRoute[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = `${API_PREFIX}${route.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
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
    const errors: Record<string, string> = {
      '400': 'Invalid parameters or body (`bad_request` with `details.issues`) or a refusal of the operation',
      '401': 'Missing, malformed, unknown, expired or revoked credential',
      '403': 'Role too low, or a cross-origin write',
      '404': 'Unknown resource',
      '409': '`setup_required` before the first admin exists, or a conflict of the operation',
      '413': 'Body over the limit',
      '500': 'Unexpected failure (generic message)',
    };
    for (const [status, description] of Object.entries(errors)) {
      if (route.role === 'public' && (status === '401' || status === '403')) continue;
      responses[status] ??= { description, content: { 'application/json': { schema: errorRef } } };
    }
    const op: Json = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[/:-]+(.)?/g, (_m, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
      summary: route.summary,
      tags: route.tags,
      'x-role': route.role,
      ...(route.socketBeforeSetup ? { 'x-unix-socket-before-setup': true } : {}),
      ...(route.socketOnly ? { 'x-unix-socket-only': true } : {}),
      security:
        route.role === 'public' ? [] : route.allowBasic ? [{ bearer: [] }, { basic: [] }] : [{ bearer: [] }],
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
      responses,
    };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Storage appliance admin API',
      version,
      description: 'Administrator operations of the appliance. Errors: `{code, message, details?}`.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Personal API token `apat_…`' },
        basic: { type: 'http', scheme: 'basic', description: 'Only on POST /api/v1/tokens' },
      },
      schemas: { Error: schemaOf(ErrorBody, 'output') },
    },
    paths,
  };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A self-contained, browsable reference page (no external scripts: the appliance may be offline). */
export function renderReference(doc: Json): string {
  const paths = doc['paths'] as Record<string, Record<string, Json>>;
  const rows: string[] = [];
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const body = (op['requestBody'] as Json | undefined)?.['content'];
      const responses = op['responses'] as Record<string, Json>;
      rows.push(`<details id="${esc(String(op['operationId']))}"><summary><code class="m ${method}">${method.toUpperCase()}</code> <code>${esc(path)}</code> — ${esc(String(op['summary']))} <small>role: ${esc(String(op['x-role']))}</small></summary>
${op['parameters'] ? `<h4>Parameters</h4><pre>${esc(JSON.stringify(op['parameters'], null, 2))}</pre>` : ''}
${body ? `<h4>Request body</h4><pre>${esc(JSON.stringify(body, null, 2))}</pre>` : ''}
<h4>Responses</h4>${Object.entries(responses)
        .map(
          ([s, r]) =>
            `<p><b>${s}</b> ${esc(String(r['description']))}</p>${r['content'] && s < '300' ? `<pre>${esc(JSON.stringify(r['content'], null, 2))}</pre>` : ''}`,
        )
        .join('\n')}
</details>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Appliance API reference</title>
<style>body{font:14px system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}details{border-bottom:1px solid #ddd;padding:.4rem 0}
summary{cursor:pointer}pre{background:#f6f6f6;padding:.5rem;overflow:auto;font-size:12px}.m{display:inline-block;width:4.5rem;font-weight:bold}
.get{color:#06c}.post{color:#080}.put,.patch{color:#a60}.delete{color:#c00}small{color:#777}</style></head>
<body><h1>Appliance admin API</h1><p>Generated from the request schemas. Machine-readable: <a href="/api/v1/openapi.json">openapi.json</a>.</p>
${rows.join('\n')}</body></html>`;
}
