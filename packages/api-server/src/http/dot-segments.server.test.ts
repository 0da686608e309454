/**
 * Issue 18 through the real listeners: each request goes over TCP and over the Unix socket, sent
 * byte for byte twice (node:http with the path as given, and the request line written on a `net`
 * socket), so no client resolves the dot segments. Every answer is checked for its status, code
 * and named parameter, for the route that answered (the request's log line), and for an unchanged
 * database.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedArray } from '../../test-support/shares.ts';
import { type Sandbox, startSandbox } from '../../test-support/sandbox.ts';

interface Answer {
  status: number;
  body: { code?: string; details?: { issues?: Array<{ path: string; message: string }> } } | null;
  text: string;
}

type Via = 'tcp' | 'unix';
type Client = 'node:http' | 'net';

let s: Sandbox;

beforeAll(async () => {
  s = await startSandbox();
  // An array and two shares, one named like the static word after `:name` (`permissions`), so a
  // request that reached `PUT|DELETE /shares/:name` would really change or delete it.
  seedArray(s, { dataDisks: 1 });
  const now = new Date().toISOString();
  for (const name of ['permissions', 'media'])
    s.server.ctx.sqlite
      .prepare(
        "insert into shares (name, cache_mode, create_policy, smb_enabled, smb_browseable, created_at, updated_at) values (?, 'array-only', 'mfs', 1, 1, ?, ?)",
      )
      .run(name, now, now);
});
afterAll(async () => {
  await s?.close();
});

function target(via: Via): { socketPath: string } | { host: string; port: number } {
  if (via === 'unix') return { socketPath: s.socket };
  const u = new URL(s.url);
  return { host: u.hostname, port: Number(u.port) };
}

function parse(text: string): Answer['body'] {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function viaNodeHttp(
  via: Via,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ ...target(via), method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: parse(text), text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The request head written as text on a socket (HTTP/1.1, `Connection: close`), the answer read to EOF. */
function viaNet(
  via: Via,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t = target(via);
    const socket = 'socketPath' in t ? net.connect(t.socketPath) : net.connect(t.port, t.host);
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close'];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    const chunks: Buffer[] = [];
    socket.on('connect', () => socket.end(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const head = raw.slice(0, split);
      let text = raw.slice(split + 4);
      if (/\r\ntransfer-encoding: chunked/i.test(head)) {
        let out = '';
        for (let rest = text; ; ) {
          const eol = rest.indexOf('\r\n');
          const size = Number.parseInt(rest.slice(0, eol), 16);
          if (!size) break;
          out += rest.slice(eol + 2, eol + 2 + size);
          rest = rest.slice(eol + 2 + size + 2);
        }
        text = out;
      }
      resolve({ status: Number(head.split(' ')[1]), body: parse(text), text });
    });
  });
}

/** One request, and the route pattern its log line names (the route that answered it). */
async function send(
  client: Client,
  via: Via,
  method: string,
  path: string,
  o: { json?: unknown; token?: string | null } = {},
): Promise<Answer & { route: string | undefined }> {
  const headers: Record<string, string> = {};
  const token = o.token === undefined ? s.token : o.token;
  if (token && via === 'tcp') headers['Authorization'] = `Bearer ${token}`;
  const body = o.json === undefined ? undefined : JSON.stringify(o.json);
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  const from = s.logs.length;
  const res = await (client === 'net' ? viaNet : viaNodeHttp)(via, method, path, headers, body);
  const line = s.logs
    .slice(from)
    .map((l) => JSON.parse(l) as { msg: string; route?: string })
    .find((l) => l.msg === 'request');
  return { ...res, route: line?.route };
}

const PERMISSIONS = { users: [], groups: [] };
const SHARE_UPDATE = {
  cacheMode: 'array-only',
  createPolicy: 'lfs',
  smb: { enabled: false, browseable: false },
};
const ROUTING = { severity: 'critical', channelIds: [] };
const USER_PERMISSIONS = { permissions: [] };

/** The issue's examples (and the other spellings the URL parser resolves): 400 naming the parameter. */
const REFUSED: Array<[method: string, path: string, body: unknown, param: string, route: string]> = [
  ['PUT', '/api/v1/shares/./permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  // a body that fits PUT /shares/:name: it would have changed the share named `permissions`
  ['PUT', '/api/v1/shares/./permissions', SHARE_UPDATE, 'name', '/api/v1/shares/:name/permissions'],
  ['PUT', '/api/v1/shares/../permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  ['PUT', '/api/v1/shares/%2e%2e/permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  ['PUT', '/api/v1/shares/%2E%2E/permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  ['PUT', '/api/v1/shares/.%2E/permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  ['PUT', '/api/v1/shares/%2e./permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  ['PUT', '/api/v1/shares/%2E/permissions', PERMISSIONS, 'name', '/api/v1/shares/:name/permissions'],
  ['GET', '/api/v1/shares/./permissions', undefined, 'name', '/api/v1/shares/:name/permissions'],
  [
    'PUT',
    '/api/v1/notifications/routing/%2e%2e',
    ROUTING,
    'eventType',
    '/api/v1/notifications/routing/:eventType',
  ],
  [
    'PUT',
    '/api/v1/notifications/routing/..',
    ROUTING,
    'eventType',
    '/api/v1/notifications/routing/:eventType',
  ],
  [
    'PUT',
    '/api/v1/notifications/routing/%2E%2E',
    ROUTING,
    'eventType',
    '/api/v1/notifications/routing/:eventType',
  ],
  [
    'PUT',
    '/api/v1/notifications/routing/.',
    ROUTING,
    'eventType',
    '/api/v1/notifications/routing/:eventType',
  ],
  ['PUT', '/api/v1/users/../permissions', USER_PERMISSIONS, 'id', '/api/v1/users/:id/permissions'],
  ['DELETE', '/api/v1/shares/..', undefined, 'name', '/api/v1/shares/:name'],
  [
    'POST',
    '/api/v1/shares/%2e%2e/data/delete',
    { confirmation: '..' },
    'name',
    '/api/v1/shares/:name/data/delete',
  ],
];

/** Dot segments no template has a parameter for: 404, and no route answers. */
const NOT_FOUND: Array<[method: string, path: string, body: unknown]> = [
  // DELETE /shares/:name/permissions does not exist: DELETE /shares/:name must not answer it
  ['DELETE', '/api/v1/shares/./permissions', undefined],
  ['DELETE', '/api/v1/shares/x/../permissions', undefined],
  ['PUT', '/api/v1/shares/x/%2e%2e/permissions', SHARE_UPDATE],
  ['PUT', '/api/v1/shares/./permissions/', PERMISSIONS],
  ['GET', '/api/v1/./users', undefined],
  ['GET', '/api/v1/users/x/..', undefined],
  ['GET', '/x/../api/v1/users', undefined],
];

describe('a dot segment in the raw path (issue 18)', () => {
  for (const via of ['tcp', 'unix'] as const)
    for (const client of ['node:http', 'net'] as const)
      describe(`over ${via}, sent with ${client}`, () => {
        it('is refused by the route its raw segments match: 400 naming the parameter, nothing written', async () => {
          const before = s.dumpDatabase();
          for (const [method, path, json, param, route] of REFUSED) {
            const r = await send(client, via, method, path, json === undefined ? {} : { json });
            const what = `${method} ${path} → ${r.status} ${r.text}`;
            expect([r.status, r.body?.code, r.body?.details?.issues?.[0]?.path], what).toEqual([
              400,
              'bad_request',
              param,
            ]);
            expect(r.body?.details?.issues, what).toHaveLength(1);
            expect(r.route, what).toBe(route);
            expect(s.dumpDatabase(), what).toBe(before);
          }
        });

        it('is 404 not_found where no template has a parameter for it, nothing written', async () => {
          const before = s.dumpDatabase();
          for (const [method, path, json] of NOT_FOUND) {
            const r = await send(client, via, method, path, json === undefined ? {} : { json });
            const what = `${method} ${path} → ${r.status} ${r.text}`;
            expect([r.status, r.body?.code], what).toEqual([404, 'not_found']);
            expect(r.route, what).toBe('(none)');
            expect(s.dumpDatabase(), what).toBe(before);
          }
        });
      });

  it('judges an absolute-form target and ignores the query and fragment', async () => {
    const before = s.dumpDatabase();
    for (const via of ['tcp', 'unix'] as const)
      for (const [method, path, json, param, route] of [
        [
          'PUT',
          'http://localhost/api/v1/shares/./permissions',
          PERMISSIONS,
          'name',
          '/api/v1/shares/:name/permissions',
        ],
        ['GET', '/api/v1/users/..#fragment', undefined, 'id', '/api/v1/users/:id'],
        ['GET', '/api/v1/users/%2E%2E?next=/./', undefined, 'id', '/api/v1/users/:id'],
      ] as const) {
        const r = await send('net', via, method, path, json === undefined ? {} : { json });
        const what = `${via} ${method} ${path} → ${r.status} ${r.text}`;
        expect([r.status, r.body?.code, r.body?.details?.issues?.[0]?.path], what).toEqual([
          400,
          'bad_request',
          param,
        ]);
        expect(r.route, what).toBe(route);
      }
    expect(s.dumpDatabase()).toBe(before);
  });

  it('refuses a backslash in the path (the URL parser reads it as "/") with 400 bad_request and a sentence, before any route', async () => {
    const before = s.dumpDatabase();
    for (const via of ['tcp', 'unix'] as const)
      for (const [method, path] of [
        ['GET', '/api/v1/users\\..\\setup'],
        ['PUT', '/api/v1/shares/media\\..\\permissions'],
      ] as const) {
        const r = await send('net', via, method, path, method === 'PUT' ? { json: PERMISSIONS } : {});
        const what = `${via} ${method} ${path} → ${r.status} ${r.text}`;
        expect([r.status, r.body?.code], what).toEqual([400, 'bad_request']);
        expect((r.body as { message?: string } | null)?.message, what).toMatch(/backslash/);
      }
    expect(s.dumpDatabase()).toBe(before);
  });

  it('keeps the order of checks: no credential → 401, from the route the raw segments match', async () => {
    const before = s.dumpDatabase();
    for (const client of ['node:http', 'net'] as const)
      for (const [method, path, json, , route] of REFUSED) {
        const r = await send(client, 'tcp', method, path, {
          token: null,
          ...(json === undefined ? {} : { json }),
        });
        const what = `${method} ${path} → ${r.status} ${r.text}`;
        expect([r.status, r.body?.code], what).toEqual([401, 'unauthorized']);
        expect(r.route, what).toBe(route);
      }
    expect(s.dumpDatabase()).toBe(before);
  });

  it('leaves the shares as they were and the service answering', async () => {
    const rows = s.server.ctx.sqlite
      .prepare('select name, create_policy, smb_enabled from shares order by name')
      .all();
    expect(rows).toEqual([
      { name: 'media', create_policy: 'mfs', smb_enabled: 1 },
      { name: 'permissions', create_policy: 'mfs', smb_enabled: 1 },
    ]);
    const r = await send('node:http', 'tcp', 'GET', '/api/v1/shares/permissions/permissions');
    expect(r.status, r.text).toBe(200);
    expect(r.route).toBe('/api/v1/shares/:name/permissions');
  });
});
