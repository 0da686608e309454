import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { defineRoute } from '../../http/route.ts';
import { Lockout, Passwords } from '@appliance/accounts';
import { createAuthenticator } from '../session/deps.ts';
import type { AppContext } from '../../context.ts';
import { allFeatures } from '../index.ts';
import { buildOpenApi } from './openapi.ts';

const routes = () => {
  const auth = createAuthenticator({} as AppContext, new Passwords(), new Lockout());
  return allFeatures(auth, new Passwords(), 'test').flatMap((f) => f.routes);
};

/** Which routes break the documentation rule: a success response schema and a body schema for writes. */
export function undocumented(list: ReturnType<typeof routes>): string[] {
  const problems: string[] = [];
  for (const r of list) {
    const id = `${r.method} ${r.path}`;
    if (!r.role) problems.push(`${id}: no role`);
    const success = Object.entries(r.responses).filter(([s]) => Number(s) < 300);
    if (success.length === 0) problems.push(`${id}: no success response`);
    for (const [s, spec] of success)
      if (Number(s) !== 204 && !spec.schema && !spec.contentType)
        problems.push(`${id}: response ${s} has no schema`);
    if (
      ['POST', 'PUT', 'PATCH'].includes(r.method) &&
      !r.body &&
      r.bodyKind !== 'raw' &&
      !r.path.endsWith('/test') &&
      !r.path.endsWith('/refresh')
    ) {
      problems.push(`${id}: a write without a body schema`);
    }
    if (r.path.includes(':') && !r.params) problems.push(`${id}: path parameters without a schema`);
  }
  return problems;
}

describe('the OpenAPI document', () => {
  it('documents every route with request and response schemas', () => {
    const list = routes();
    expect(undocumented(list)).toEqual([]);
    const doc = buildOpenApi(list, 'test') as { openapi: string; paths: Record<string, Record<string, any>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of list) {
      const op = doc.paths[`/api/v1${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op['x-role']).toBe(r.role);
      if (r.body) expect(op.requestBody.content).toBeDefined();
    }
    const setup = doc.paths['/api/v1/setup/admin']!['post'];
    expect(setup.requestBody.content['application/json'].schema.properties.username.type).toBe('string');
    expect(setup.responses['201'].content['application/json'].schema.properties.user).toBeDefined();
    // grant lists check their size before their items (a pipe of two array schemas): the items
    // are documented all the same
    const grants =
      doc.paths['/api/v1/shares/{name}/permissions']!['put'].requestBody.content['application/json'].schema;
    expect(grants.properties.users).toMatchObject({ type: 'array', maxItems: 256 });
    expect(grants.properties.users.items.required).toEqual(['userId', 'access']);
    expect(grants.properties.groups.items.properties.access.enum).toEqual([
      'none',
      'read-only',
      'read-write',
    ]);
    expect(grants.properties.users.items.$schema).toBeUndefined();
  });

  it('flags a route added without a documented schema', () => {
    const bad = defineRoute({
      method: 'POST',
      path: '/things/:id',
      role: 'admin',
      summary: 'x',
      tags: [],
      responses: { 200: { description: 'nothing documented' } },
      handler: () => ({ status: 200 }),
    });
    const problems = undocumented([...routes(), bad]);
    expect(problems).toEqual([
      'POST /things/:id: response 200 has no schema',
      'POST /things/:id: a write without a body schema',
      'POST /things/:id: path parameters without a schema',
    ]);
    expect(v.is(v.string(), 'x')).toBe(true);
  });
});
