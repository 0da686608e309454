import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DotSegmentRouter, dotSegmentRefusal, isDotSegment, rawPathOf } from './dot-segments.ts';
import type { AnyRoute } from './route.ts';

const route = (method: AnyRoute['method'], path: string) =>
  ({
    method,
    path,
    role: 'admin',
    summary: '',
    tags: [],
    responses: {},
    handler: () => ({ status: 204 }),
  }) as AnyRoute;

const ROUTES = [
  route('GET', '/users'),
  route('PUT', '/shares/:name'),
  route('DELETE', '/shares/:name'),
  route('GET', '/shares/:name/permissions'),
  route('PUT', '/shares/:name/permissions'),
  route('PUT', '/notifications/routing/:eventType'),
  route('PUT', '/users/:id/permissions'),
  route('PUT', '/a/:x/b/:y'),
];
const router = new DotSegmentRouter(ROUTES, '/api/v1');
const byId = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path);

/** Every spelling the WHATWG URL parser resolves. */
const SINGLE = ['.', '%2e', '%2E'];
const DOUBLE = ['..', '.%2e', '.%2E', '%2e.', '%2E.', '%2e%2e', '%2e%2E', '%2E%2e', '%2E%2E'];

describe('isDotSegment', () => {
  it('is exactly what the URL parser resolves', () => {
    for (const seg of [...SINGLE, ...DOUBLE]) expect(isDotSegment(seg), seg).toBe(true);
    for (const seg of ['', '...', '%2e%2e%2e', '%252e', '.%2f', 'a.', '.a', '%2e%2', '%2f', '%3e', '..%2f'])
      expect(isDotSegment(seg), seg).toBe(false);
  });

  it('agrees with new URL() on random segments', () => {
    const piece = fc.constantFrom('.', '%2e', '%2E', '%2', 'e', 'E', '%', 'a', '%252e', '/');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 4 }).map((p) => p.join('')),
        (seg) => {
          if (seg.includes('/')) return;
          // A dot segment in the middle is removed (`.`) or removes its parent (`..`).
          const resolved = new URL(`http://h/p/${seg}/q`).pathname;
          const whatwg = resolved === '/p/q' || resolved === '/q';
          expect(isDotSegment(seg), seg).toBe(whatwg);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('rawPathOf', () => {
  it('keeps the path only, for origin- and absolute-form targets', () => {
    expect(rawPathOf('/api/v1/shares/./x?y=/./#z')).toBe('/api/v1/shares/./x');
    expect(rawPathOf('/a/..#/b?c')).toBe('/a/..');
    expect(rawPathOf('http://127.0.0.1:8008/api/v1/./x?q')).toBe('/api/v1/./x');
    expect(rawPathOf('http://host')).toBe('');
    expect(rawPathOf('*')).toBe('');
  });
});

describe('DotSegmentRouter.judge', () => {
  it('leaves paths without a dot segment to the usual routing (undefined)', () => {
    for (const t of [
      '/api/v1/shares/media/permissions',
      '/api/v1/users?limit=1.5',
      '/api/v1/shares/a.b/permissions',
      '/api/v1/shares/.../permissions',
      '/api/v1/shares/%252e/permissions',
      '/api/v1/shares/%20x/permissions',
      '/api/v1/users?x=/../',
      undefined,
    ])
      expect(router.judge('PUT', t), String(t)).toBeUndefined();
  });

  it('names the parameter of the route the raw segments match (the issue 18 examples)', () => {
    const cases: Array<[string, string, string, string[]]> = [
      ['PUT', '/api/v1/shares/./permissions', '/shares/:name/permissions', ['name']],
      ['PUT', '/api/v1/shares/../permissions', '/shares/:name/permissions', ['name']],
      ['PUT', '/api/v1/shares/%2e%2e/permissions', '/shares/:name/permissions', ['name']],
      ['PUT', '/api/v1/shares/%2E%2E/permissions?x=1', '/shares/:name/permissions', ['name']],
      ['GET', '/api/v1/shares/.%2E/permissions', '/shares/:name/permissions', ['name']],
      ['HEAD', '/api/v1/shares/%2e/permissions', '/shares/:name/permissions', ['name']],
      ['PUT', '/api/v1/notifications/routing/%2e%2e', '/notifications/routing/:eventType', ['eventType']],
      ['PUT', '/api/v1/notifications/routing/..', '/notifications/routing/:eventType', ['eventType']],
      ['PUT', '/api/v1/notifications/routing/%2E%2E', '/notifications/routing/:eventType', ['eventType']],
      ['PUT', '/api/v1/users/../permissions', '/users/:id/permissions', ['id']],
      ['PUT', 'http://h:1/api/v1/users/./permissions', '/users/:id/permissions', ['id']],
      ['PUT', '/api/v1/a/./b/..', '/a/:x/b/:y', ['x', 'y']],
      ['PUT', '/api/v1/a/ok/b/..', '/a/:x/b/:y', ['y']],
      ['PUT', '/api/v1/%73hares/..', '/shares/:name', ['name']],
    ];
    for (const [method, target, path, params] of cases) {
      const m = method === 'HEAD' ? 'GET' : method;
      expect(router.judge(method, target), `${method} ${target}`).toEqual({ route: byId(m, path), params });
    }
  });

  it('answers null (404) when no template of the method has a parameter there', () => {
    for (const [method, target] of [
      ['DELETE', '/api/v1/shares/./permissions'], // DELETE /shares/:name must not answer it
      ['DELETE', '/api/v1/shares/x/../permissions'],
      ['GET', '/api/v1/./users'],
      ['GET', '/api/./v1/users'],
      ['GET', '/../api/v1/users'],
      ['PUT', '/api/v1/shares/./permissions/'],
      ['PUT', '/api/v1/shares/./permissions/x'],
      ['PUT', '/api/v1/shares/x/%2e'],
      ['POST', '/api/v1/shares/./permissions'],
      ['OPTIONS', '/api/v1/shares/./permissions'],
      ['PUT', '/api/v1/a//b/..'],
    ] as const)
      expect(router.judge(method, target), `${method} ${target}`).toBeNull();
  });

  it('refuses with the shape of any path parameter error', () => {
    const e = dotSegmentRefusal(['name']);
    expect(e.status).toBe(400);
    expect(e.toBody()).toMatchObject({ code: 'bad_request', details: { issues: [{ path: 'name' }] } });
  });
});
