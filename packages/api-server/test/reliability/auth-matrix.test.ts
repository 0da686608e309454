/**
 * Auth matrix (issue 9): every route of the registry — derived at test time, so a route added
 * later is covered without editing this file — is called with no credential, malformed tokens, an
 * unknown token, a revoked token, Basic credentials, a viewer account's token, an admin-owned
 * viewer-scoped token and an admin token over TCP, and over the Unix socket (the local
 * administrator), before and after the first admin exists. Bodies are empty or `{}`: the auth
 * layer answers before the body matters (00 §3: 401/403 come before 400).
 *
 * Issue 18: every route with a path parameter is also called with each dot segment spelling
 * (`.`, `..`, `%2e`, `.%2E`, …) in place of each parameter, through the same cells. The route that
 * answers (its log line) must be that route every time, with the auth layer's answer where it
 * refuses and `400 bad_request` naming the parameter where it lets the request through. A dot
 * segment in place of, or inserted before, a fixed word of a route must answer 404 from no route.
 *
 * Issue 25: every 401 carries `WWW-Authenticate: Bearer`, and every registered path called with a
 * method it does not serve answers `405 method_not_allowed` with `Allow`, from no route.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../src/http/route.ts';
import type { Sandbox } from '../../test-support/sandbox.ts';
import { DOT_SEGMENTS } from './arbitraries.ts';
import {
  dotVariants,
  isErrorBody,
  isServerFailure,
  openApiPath,
  type RawResponse,
  rawRequest,
  registryRoutes,
  routeId,
  routesMatchingRaw,
  samplePath,
  startDiskFreeSandbox,
  traced,
} from './support.ts';

const routes = registryRoutes();
const ROLES = new Set(['public', 'viewer', 'admin']);
/** The document and its reference page do not list themselves (they are the documentation). */
const SELF_DOCUMENTING = new Set(['GET /openapi.json', 'GET /docs']);
const PASSWORD = 'matrix password 42';
const VIEWER_PASSWORD = 'viewer password 42';

let s: Sandbox & { refused: string[] };

beforeAll(async () => {
  s = await startDiskFreeSandbox({ admin: false });
});
afterAll(async () => {
  await s?.close();
});

/** The request a matrix cell sends: `{}` for a JSON-body route, nothing otherwise. */
const send = (r: AnyRoute, via: 'tcp' | 'unix', headers: Record<string, string> = {}, path = samplePath(r)) =>
  rawRequest(s, r.method, path, {
    via,
    headers,
    ...(r.body && r.bodyKind !== 'raw' ? { json: {} } : {}),
  });

type Expected = { status: number; code: string; param?: string };

/**
 * Issue 18: a dot segment in place of each parameter of `r`, every spelling, through `cells`. Each
 * answer comes from `r` itself (its log line), is never a 5xx, and is `expected(cell)`.
 */
async function dotCells(
  r: AnyRoute,
  cells: Array<[string, 'tcp' | 'unix', Record<string, string>]>,
  expected: (label: string, via: 'tcp' | 'unix', param: string) => Expected,
): Promise<void> {
  const problems: string[] = [];
  for (const v of dotVariants(r, DOT_SEGMENTS))
    for (const [label, via, headers] of cells) {
      const res = await traced(s, () => send(r, via, headers, v.path));
      common(r, `${label}, ${v.path}`, res);
      const want = expected(label, via, v.param);
      const body = res.body as { code?: string; details?: { issues?: Array<{ path: string }> } } | null;
      const got = {
        status: res.status,
        code: body?.code,
        ...(want.param ? { param: body?.details?.issues?.[0]?.path } : {}),
      };
      if (JSON.stringify(got) !== JSON.stringify(want) || res.route !== `/api/v1${r.path}`)
        problems.push(
          `${r.method} ${v.path} [${label}] → ${JSON.stringify(got)} from ${res.route}; want ${JSON.stringify(want)} from /api/v1${r.path}`,
        );
    }
  expect(problems).toEqual([]);
}

const refusedAs = (status: number, code: string): Expected => ({ status, code });
const dotRefusal = (param: string): Expected => ({ status: 400, code: 'bad_request', param });

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const basic = (user: string, pass: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
});
const wellFormedUnknown = () => `apat_${randomBytes(32).toString('hex')}`;

/** Credentials that never authenticate (before setup nothing does). */
const BAD_CREDENTIALS: Record<string, Record<string, string>> = {
  'malformed bearer': bearer('not-a-token'),
  'bearer, wrong prefix': bearer(`tok_${'a'.repeat(64)}`),
  'bearer, uppercase hex': bearer(`apat_${'A'.repeat(64)}`),
  'bearer, too short': bearer(`apat_${'a'.repeat(63)}`),
  'empty bearer': { authorization: 'Bearer ' },
  'unknown scheme': { authorization: 'Token abc' },
  'unknown well-formed token': bearer(wellFormedUnknown()),
};

function describeCell(r: AnyRoute, label: string, res: RawResponse): string {
  return `${routeId(r)} [${label}] → ${res.status} ${res.text.slice(0, 300)}`;
}

/**
 * Properties every answer has: never a server failure; every non-2xx is the error body; every 401
 * names the Bearer scheme (issue 25).
 */
function common(r: AnyRoute, label: string, res: RawResponse): void {
  const what = describeCell(r, label, res);
  expect(isServerFailure(res.status, res.body), what).toBe(false);
  if (res.status >= 400) expect(isErrorBody(res.body), what).toBe(true);
  expect(res.headers['www-authenticate'], what).toBe(
    res.status === 401 ? 'Bearer realm="appliance"' : undefined,
  );
}

/**
 * A route served on the Unix socket only (`socketOnly`, the local password reset): over TCP it does
 * not exist for anyone — no credential, bad ones, a viewer, the admin, a foreign Origin — and
 * answers `404 not_found` (before the setup gate, the credential and the body).
 */
async function tcpNeverServes(r: AnyRoute, cells: Array<[string, Record<string, string>]>): Promise<void> {
  for (const [label, headers] of cells) {
    const res = await send(r, 'tcp', headers);
    common(r, label, res);
    const what = describeCell(r, label, res);
    expect([res.status, (res.body as { code?: string } | null)?.code], what).toEqual([404, 'not_found']);
  }
}

describe('the registry', () => {
  it('gives every route a role and documents it in the served OpenAPI document', async () => {
    expect(routes.length).toBeGreaterThan(40);
    const problems: string[] = [];
    const res = await rawRequest(s, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as { paths: Record<string, Record<string, { 'x-role'?: string }>> };
    const documented = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths))
      for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${p}`);
    for (const r of routes) {
      if (!ROLES.has(r.role)) problems.push(`${routeId(r)}: role ${String(r.role)}`);
      if (SELF_DOCUMENTING.has(routeId(r))) continue;
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
      if (!op) problems.push(`${routeId(r)}: missing from the OpenAPI document`);
      else if (op['x-role'] !== r.role) problems.push(`${routeId(r)}: OpenAPI x-role ${op['x-role']}`);
      documented.delete(`${r.method} ${openApiPath(r.path)}`);
    }
    // …and the matrix covers every documented operation (nothing served outside the registry).
    for (const extra of documented) problems.push(`${extra}: documented but not in the registry`);
    expect(problems).toEqual([]);
  });
});

describe('before the first admin exists', () => {
  for (const r of routes) {
    it(`${routeId(r)}`, async () => {
      const cells: Array<[string, 'tcp' | 'unix', Record<string, string>]> = [
        ['no credential', 'tcp', {}],
        ...Object.entries(BAD_CREDENTIALS).map(
          ([k, h]) => [k, 'tcp', h] as [string, 'tcp' | 'unix', Record<string, string>],
        ),
        ['basic', 'tcp', basic('admin', PASSWORD)],
        ['socket', 'unix', {}],
      ];
      if (r.socketOnly) {
        await tcpNeverServes(
          r,
          cells.filter(([, via]) => via === 'tcp').map(([label, , headers]) => [label, headers]),
        );
        const res = await send(r, 'unix');
        common(r, 'socket', res);
        expect((res.body as { code: string }).code, describeCell(r, 'socket', res)).toBe('setup_required');
        return;
      }
      for (const [label, via, headers] of cells) {
        const res = await send(r, via, headers);
        common(r, label, res);
        const what = describeCell(r, label, res);
        const served = r.ungated || (r.socketBeforeSetup && via === 'unix');
        if (!served) {
          expect(res.status, what).toBe(409);
          expect((res.body as { code: string }).code, what).toBe('setup_required');
        } else {
          expect((res.body as { code?: string } | null)?.code, what).not.toBe('setup_required');
          if (via === 'unix' || label === 'no credential') expect([401, 403], what).not.toContain(res.status);
        }
      }
      if (r.path.includes('/:'))
        await dotCells(r, [cells[0]!, cells[1]!, cells.at(-1)!], (_label, via, param) => {
          const served = r.ungated || (r.socketBeforeSetup && via === 'unix');
          if (!served) return refusedAs(409, 'setup_required');
          if (via === 'tcp' && r.role !== 'public') return refusedAs(401, 'unauthorized');
          return dotRefusal(param);
        });
    });
  }
  it('created no admin and wrote nothing but what startup writes', async () => {
    const users = s.server.ctx.sqlite.prepare('select count(*) as n from users').get() as { n: number };
    expect(users.n).toBe(0);
    expect(s.refused).toEqual([]);
  });
});

describe('after the first admin exists', () => {
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    const admin = await rawRequest(s, 'POST', '/setup/admin', {
      json: { username: 'admin', password: PASSWORD },
    });
    expect(admin.status, admin.text).toBe(201);
    const mk = async (headers: Record<string, string>, role: string) => {
      const r = await rawRequest(s, 'POST', '/tokens', { headers, json: { name: `m-${role}`, role } });
      expect(r.status, r.text).toBe(201);
      return r.body as { token: string; id: string };
    };
    tokens['admin'] = (await mk(basic('admin', PASSWORD), 'admin')).token;
    tokens['admin-owned viewer token'] = (await mk(bearer(tokens['admin']), 'viewer')).token;
    const viewer = await rawRequest(s, 'POST', '/users', {
      headers: bearer(tokens['admin']),
      json: { username: 'watcher', role: 'viewer', password: VIEWER_PASSWORD },
    });
    expect(viewer.status, viewer.text).toBe(201);
    tokens['viewer account'] = (await mk(basic('watcher', VIEWER_PASSWORD), 'viewer')).token;
    const doomed = await mk(bearer(tokens['admin']), 'admin');
    const del = await rawRequest(s, 'DELETE', `/tokens/${doomed.id}`, { headers: bearer(tokens['admin']) });
    expect(del.status, del.text).toBe(204);
    tokens['revoked'] = doomed.token;
    // The revoked token really is dead.
    const probe = await rawRequest(s, 'GET', '/users', { headers: bearer(doomed.token) });
    expect(probe.status).toBe(401);
  });

  for (const r of routes) {
    it(`${routeId(r)}`, async () => {
      const refusedAlways: Array<[string, Record<string, string>]> = [
        ...Object.entries(BAD_CREDENTIALS),
        ['revoked token', bearer(tokens['revoked']!)],
      ];
      if (r.socketOnly) {
        await tcpNeverServes(r, [
          ['no credential', {}],
          ...refusedAlways,
          ['basic', basic('admin', PASSWORD)],
          ['viewer account', bearer(tokens['viewer account']!)],
          ['admin', bearer(tokens['admin']!)],
          ['admin, foreign Origin', { ...bearer(tokens['admin']!), origin: 'https://evil.example' }],
        ]);
        // The socket is the local administrator: never refused by the auth layer.
        const res = await send(r, 'unix');
        common(r, 'socket', res);
        expect([401, 403, 404], describeCell(r, 'socket', res)).not.toContain(res.status);
        return;
      }
      // No credential.
      {
        const res = await send(r, 'tcp');
        common(r, 'no credential', res);
        const what = describeCell(r, 'no credential', res);
        if (r.role === 'public') expect([401, 403], what).not.toContain(res.status);
        else {
          expect(res.status, what).toBe(401);
          expect((res.body as { code: string }).code, what).toBe('unauthorized');
        }
      }
      // Credentials that never authenticate.
      for (const [label, headers] of refusedAlways) {
        const res = await send(r, 'tcp', headers);
        common(r, label, res);
        if (r.role !== 'public') {
          const what = describeCell(r, label, res);
          expect(res.status, what).toBe(401);
          expect((res.body as { code: string }).code, what).toBe('unauthorized');
        }
      }
      // Basic credentials (right password) are accepted only where the route allows them.
      {
        const res = await send(r, 'tcp', basic('admin', PASSWORD));
        common(r, 'basic', res);
        const what = describeCell(r, 'basic', res);
        if (r.allowBasic) expect([401, 403], what).not.toContain(res.status);
        else if (r.role !== 'public') expect(res.status, what).toBe(401);
      }
      // Viewers: forbidden on admin routes, served elsewhere.
      for (const label of ['viewer account', 'admin-owned viewer token']) {
        const res = await send(r, 'tcp', bearer(tokens[label]!));
        common(r, label, res);
        const what = describeCell(r, label, res);
        if (r.role === 'admin') {
          expect(res.status, what).toBe(403);
          expect((res.body as { code: string }).code, what).toBe('forbidden');
        } else expect([401, 403], what).not.toContain(res.status);
      }
      // The admin token and the socket are never refused by the auth layer.
      for (const [label, via, headers] of [
        ['admin', 'tcp', bearer(tokens['admin']!)],
        ['socket', 'unix', {}],
        ['socket with a bad bearer', 'unix', bearer('not-a-token')],
      ] as Array<[string, 'tcp' | 'unix', Record<string, string>]>) {
        const res = await send(r, via, headers);
        common(r, label, res);
        const what = describeCell(r, label, res);
        expect([401, 403], what).not.toContain(res.status);
        expect((res.body as { code?: string } | null)?.code, what).not.toBe('setup_required');
      }
      // Cross-origin writes are refused even for the admin.
      if (r.method !== 'GET') {
        const res = await send(r, 'tcp', { ...bearer(tokens['admin']!), origin: 'https://evil.example' });
        common(r, 'admin, foreign Origin', res);
        expect(res.status, describeCell(r, 'admin, foreign Origin', res)).toBe(403);
      }
      // Dot segments in place of the parameters: the same cells, answered by this route only.
      if (r.path.includes('/:')) {
        const cells: Array<[string, 'tcp' | 'unix', Record<string, string>]> = [
          ['no credential', 'tcp', {}],
          ['malformed bearer', 'tcp', BAD_CREDENTIALS['malformed bearer']!],
          ['revoked token', 'tcp', bearer(tokens['revoked']!)],
          ['viewer account', 'tcp', bearer(tokens['viewer account']!)],
          ['admin', 'tcp', bearer(tokens['admin']!)],
          ['socket', 'unix', {}],
          ...(r.method !== 'GET'
            ? [
                [
                  'admin, foreign Origin',
                  'tcp',
                  { ...bearer(tokens['admin']!), origin: 'https://evil.example' },
                ] as [string, 'tcp' | 'unix', Record<string, string>],
              ]
            : []),
        ];
        await dotCells(r, cells, (label, _via, param) => {
          if (label === 'admin, foreign Origin') return refusedAs(403, 'forbidden');
          if (r.role !== 'public' && ['no credential', 'malformed bearer', 'revoked token'].includes(label))
            return refusedAs(401, 'unauthorized');
          if (label === 'viewer account' && r.role === 'admin') return refusedAs(403, 'forbidden');
          return dotRefusal(param);
        });
      }
    });
  }

  it('path variants and HEAD never get past the auth layer without a credential', async () => {
    const leaks: string[] = [];
    for (const r of routes.filter((x) => x.role !== 'public')) {
      const p = samplePath(r);
      const variants = [
        `${p}/`,
        `/${p}`,
        p.toUpperCase(),
        p.replace(/^\/([a-z])/, (_m, c: string) => `/%${c.charCodeAt(0).toString(16)}`),
        `/./${p.slice(1)}`,
        `/x/..${p}`,
        `${p}?token=${tokens['admin']}`,
        `${p};x=1`,
      ];
      for (const v of variants) {
        const res = await rawRequest(s, r.method, v, r.body && r.bodyKind !== 'raw' ? { json: {} } : {});
        if (res.status < 400 || res.status >= 500 || !isErrorBody(res.body))
          leaks.push(`${r.method} ${v} → ${res.status} ${res.text.slice(0, 80)}`);
      }
      if (r.method === 'GET') {
        const head = await rawRequest(s, 'HEAD', p);
        if (head.status !== 401) leaks.push(`HEAD ${p} → ${head.status}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it('a dot segment where a route has a fixed word is answered by no route (404), or by one whose template matches', async () => {
    const problems: string[] = [];
    let n = 0;
    const spelling = (len: 1 | 2) => {
      const pick = DOT_SEGMENTS.filter((d) => (len === 1 ? /^(\.|%2e)$/i.test(d) : !/^(\.|%2e)$/i.test(d)));
      return pick[n++ % pick.length]!;
    };
    for (const r of routes) {
      const segs = `/api/v1${samplePath(r)}`.split('/').slice(1);
      const words = `/api/v1${r.path}`.split('/').slice(1);
      const paths: string[] = [];
      for (let i = 0; i < segs.length; i++) {
        if (words[i]!.startsWith(':')) continue;
        const at = (insert: string[], drop: number) =>
          `/${[...segs.slice(0, i), ...insert, ...segs.slice(i + drop)].join('/')}`;
        paths.push(
          at([spelling(1)], 1), // the word replaced by `.`
          at([spelling(2)], 1), // the word replaced by `..`
          at([spelling(1)], 0), // `.` before the word (resolves to the route's own path)
          at(['x', spelling(2)], 0), // `x/..` before the word (idem)
        );
      }
      for (const path of paths)
        for (const [label, headers] of [
          ['no credential', {}],
          ['admin', bearer(tokens['admin']!)],
        ] as const) {
          const res = await traced(s, () =>
            rawRequest(s, r.method, path, {
              headers,
              asIs: true,
              ...(r.body && r.bodyKind !== 'raw' ? { json: {} } : {}),
            }),
          );
          common(r, `${label}, ${path}`, res);
          const allowed = routesMatchingRaw(routes, r.method, path);
          const code = (res.body as { code?: string } | null)?.code;
          if (
            allowed.length === 0
              ? res.status !== 404 || code !== 'not_found' || res.route !== '(none)'
              : !allowed.includes(res.route!)
          )
            problems.push(
              `${r.method} ${path} [${label}] → ${res.status} ${code} from ${res.route}; may answer: ${allowed.join(', ') || '(none), 404'}`,
            );
        }
    }
    expect(problems).toEqual([]);
  });

  it('a registered path with a method it does not serve is 405 with Allow, from no route, before any credential', async () => {
    const problems: string[] = [];
    const byPath = new Map<string, AnyRoute[]>();
    for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
    for (const served of byPath.values()) {
      const methods = new Set<string>(served.map((r) => r.method));
      const allow = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
        .filter((m) => methods.has(m) || (m === 'HEAD' && methods.has('GET')))
        .join(', ');
      const path = samplePath(served[0]!);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter(
        (m) => !methods.has(m),
      ))
        for (const [label, headers] of [
          ['no credential', {}],
          ['admin', bearer(tokens['admin']!)],
        ] as const) {
          const res = await traced(s, () => rawRequest(s, method, path, { headers }));
          const body = res.body as { code?: string; details?: { allowed?: string[] } } | null;
          const got = `${res.status} ${body?.code} allow=${res.headers['allow']} from ${res.route}`;
          const want = `405 method_not_allowed allow=${allow} from (none)`;
          if (got !== want || body?.details?.allowed?.join(', ') !== allow)
            problems.push(`${method} ${path} [${label}] → ${got}; want ${want}`);
        }
    }
    expect(problems).toEqual([]);
  });

  it('ran no disk-writing command', () => {
    expect(s.refused).toEqual([]);
  });
});
