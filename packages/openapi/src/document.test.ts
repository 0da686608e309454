/**
 * The document of two routes described with valibot: parameters (path ones always required), the
 * request body (required unless an absent body counts as `{}`), the declared answers, the default
 * error answers (a route's own description wins, some left out per route), the `x-` fields and
 * security of the caller, the array items of a size-checked pipe; and the reference page.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { buildDocument, type DocumentedRoute, operationId } from './document.ts';
import { laterArrayItems } from './json-schema.ts';
import { renderReference } from './reference.ts';

type Route = DocumentedRoute & { role: 'public' | 'admin' };

const Job = v.object({ id: v.string(), state: v.picklist(['running', 'ended']) });
const routes: Route[] = [
  {
    method: 'GET',
    path: '/jobs/:id',
    role: 'admin',
    summary: 'One job',
    tags: ['jobs'],
    params: v.strictObject({ id: v.string() }),
    query: v.strictObject({ verbose: v.optional(v.string()), limit: v.string() }),
    responses: { 200: { description: 'The job', schema: Job }, 404: { description: 'No such job' } },
  },
  {
    method: 'POST',
    path: '/jobs',
    role: 'public',
    summary: 'Start <a> job',
    tags: ['jobs'],
    body: v.strictObject({
      disks: v.pipe(v.array(v.unknown()), v.maxLength(3), v.array(v.string())),
    }),
    emptyBody: 'object',
    responses: { 202: { description: 'Started', contentType: 'application/json' } },
  },
];

const doc = buildDocument(routes, {
  prefix: '/api/v9',
  info: { title: 'T', version: '1.0.0', description: 'D' },
  securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  errorSchema: v.object({ code: v.string() }),
  errors: { '401': 'No credential', '404': 'Unknown', '500': 'Failure' },
  omitErrors: (r) => (r.role === 'public' ? ['401'] : []),
  extensions: (r) => ({ 'x-role': r.role }),
  security: (r) => (r.role === 'public' ? [] : [{ bearer: [] }]),
});
// biome-ignore lint/suspicious/noExplicitAny: reading the generated JSON
const paths = doc['paths'] as Record<string, Record<string, any>>;

describe('buildDocument', () => {
  it('documents each route under the prefix with {braces}, its operation id, x- fields and security', () => {
    expect(Object.keys(paths)).toEqual(['/api/v9/jobs/{id}', '/api/v9/jobs']);
    const get = paths['/api/v9/jobs/{id}']?.['get'];
    expect(Object.keys(get)).toEqual([
      'operationId',
      'summary',
      'tags',
      'x-role',
      'security',
      'parameters',
      'responses',
    ]);
    expect(get.operationId).toBe('getJobsId');
    expect(get.security).toEqual([{ bearer: [] }]);
    expect(paths['/api/v9/jobs']?.['post'].security).toEqual([]);
    expect(operationId('DELETE', '/shares/:name/grants')).toBe('deleteSharesNameGrants');
  });

  it('parameters: path ones required, query ones as their schema says', () => {
    const params = paths['/api/v9/jobs/{id}']?.['get'].parameters as Array<{
      name: string;
      in: string;
      required: boolean;
    }>;
    expect(params.map((p) => [p.name, p.in, p.required])).toEqual([
      ['id', 'path', true],
      ['verbose', 'query', false],
      ['limit', 'query', true],
    ]);
  });

  it('answers: declared ones with their schema, the default errors added unless declared or left out', () => {
    const get = paths['/api/v9/jobs/{id}']?.['get'].responses;
    expect(Object.keys(get)).toEqual(['200', '401', '404', '500']); // integer keys: in numeric order
    expect(get['404']).toEqual({ description: 'No such job' });
    expect(get['200'].content['application/json'].schema.properties.state.enum).toEqual(['running', 'ended']);
    expect(get['500'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const post = paths['/api/v9/jobs']?.['post'].responses;
    expect(Object.keys(post)).toEqual(['202', '404', '500']);
    expect(post['202']).toEqual({ description: 'Started', content: { 'application/json': {} } });
  });

  it('the body: not required when absent counts as {}; a size-checked array documents its items', () => {
    const body = paths['/api/v9/jobs']?.['post'].requestBody;
    expect(body.required).toBe(false);
    expect(body.content['application/json'].schema.properties.disks.items).toEqual({ type: 'string' });
    expect(laterArrayItems(v.string())).toBeNull();
    expect(doc['components']).toMatchObject({
      schemas: { Error: { properties: { code: { type: 'string' } } } },
    });
    expect(doc['info']).toEqual({ title: 'T', version: '1.0.0', description: 'D' });
  });
});

describe('renderReference', () => {
  it('a self-contained page: every operation, escaped, the document linked', () => {
    const html = renderReference(doc, {
      title: 'My API',
      heading: 'My admin API',
      documentUrl: '/api/v9/openapi.json',
    });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>My API</title>');
    expect(html).toContain('<a href="/api/v9/openapi.json">openapi.json</a>');
    expect(html).toContain('<details id="getJobsId">');
    expect(html).toContain('Start &#60;a&#62; job');
    expect(html).toContain('role: public');
    expect(html).not.toMatch(/<script/);
  });
});
