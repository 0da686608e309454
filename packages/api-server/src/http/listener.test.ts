import http from 'node:http';
import net from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../logger.ts';
import type { AppEnv } from './app.ts';
import { nodeListener } from './listener.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const logged: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
const logger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (msg, fields) => logged.push({ msg, ...(fields ? { fields } : {}) }),
};

/** A Hono app of AppEnv served by the service's adapter on loopback, as server.ts serves the real one. */
async function serve(app: Pick<Hono<AppEnv>, 'fetch'>): Promise<string> {
  const server = http.createServer(
    nodeListener(app as Hono<AppEnv>, logger, (incoming) => ({
      transport: 'tcp',
      remoteAddress: incoming.socket.remoteAddress ?? 'unknown',
    })),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** One raw HTTP/1.1 exchange: what the server wrote until it closed, `until` matched, or the timeout. */
function raw(hostPort: string, data: string, until?: RegExp, timeoutMs = 5000) {
  const [host, port] = hostPort.split(':');
  return new Promise<{ text: string; closed: boolean }>((resolve) => {
    const socket = net.connect(Number(port), host);
    let text = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (until?.test(text)) done(false);
    });
    socket.on('close', () => done(true));
    socket.on('error', () => undefined);
    socket.write(data);
  });
}

function testApp() {
  const app = new Hono<AppEnv>();
  app.get('/ok', (c) => c.json({ ok: true, transport: c.env.transport, incoming: !!c.env.incoming }));
  // A header value Node refuses to write (a character above 0xFF), first seen by Node's writeHead:
  // the library's Response keeps a plain header record as it is.
  app.get(
    '/bad-header',
    () =>
      new Response('{"never":"sent"}', {
        headers: { 'content-type': 'application/json', 'x-name': 'caf\u0101' },
      }),
  );
  // A Response whose body the route had already read.
  app.get('/used-body', async () => {
    const r = new Response('already read');
    await r.text();
    return r;
  });
  app.post('/form', async (c) => c.json(await c.req.parseBody()));
  app.post('/ignore-body', (c) => c.text(`${c.req.method} ignored`));
  return app;
}

describe('the HTTP adapter (@hono/node-server)', () => {
  it('answers a header value the platform refuses with a logged 500, and keeps serving', async () => {
    const at = await serve(testApp());
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // Another client is connected (keep-alive) before, and is answered after.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (p: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get(`http://${at}${p}`, { agent }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    expect((await get('/ok')).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const bad = await fetch(`http://${at}/bad-header`);
      expect(bad.status).toBe(500);
      expect(bad.headers.get('x-name')).toBeNull();
      expect(await bad.text()).not.toContain('never');
    }
    expect(stderr).toHaveBeenCalledTimes(3);
    expect(String(stderr.mock.calls[0]?.[0])).toMatch(/Invalid character in header content \["x-name"\]/);
    expect(await get('/ok')).toEqual({
      status: 200,
      body: JSON.stringify({ ok: true, transport: 'tcp', incoming: true }),
    });
    expect((await fetch(`http://${at}/ok`)).status).toBe(200);
    agent.destroy();
  });

  it('answers a Response whose body was already read with a logged 500, and keeps serving', async () => {
    const at = await serve(testApp());
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const r = await fetch(`http://${at}/used-body`);
    expect(r.status).toBe(500);
    await r.text();
    expect(stderr).toHaveBeenCalled();
    expect((await fetch(`http://${at}/ok`)).status).toBe(200);
  });

  it('answers a handler that rejects with a logged 500 internal', async () => {
    logged.length = 0;
    const at = await serve({ fetch: () => Promise.reject(new Error('a bug')) });
    const r = await fetch(`http://${at}/x`);
    expect([r.status, ((await r.json()) as { code: string }).code]).toEqual([500, 'internal']);
    expect(logged).toEqual([{ msg: 'unexpected failure', fields: { error: 'a bug' } }]);
  });

  it('answers 400 bad_request with a sentence to a target or Host that cannot form a URL, before the app', async () => {
    let called = 0;
    const at = await serve({
      fetch: () => {
        called += 1;
        return new Response('no');
      },
    });
    for (const [head, sentence] of [
      ['GET /a\\..\\b HTTP/1.1\r\nHost: x', /backslash/],
      ['GET /x HTTP/1.1\r\nHost: a@b', /Host header/],
      ['GET /x HTTP/1.0', /no Host header/],
    ] as const) {
      const { text } = await raw(at, `${head}\r\nConnection: close\r\n\r\n`);
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { code: string; message: string };
      expect(body.code).toBe('bad_request');
      expect(body.message).toMatch(sentence);
    }
    expect(called).toBe(0);
  });

  it('aborts the request signal when the client leaves before the answer', async () => {
    let aborted: Promise<boolean> | null = null;
    const at = await serve({
      fetch: (req: Request) => {
        aborted = new Promise((resolve) => req.signal.addEventListener('abort', () => resolve(true)));
        return new Promise<Response>(() => undefined);
      },
    });
    await raw(at, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', undefined, 300);
    await expect.poll(() => aborted !== null).toBe(true);
    expect(await aborted!).toBe(true);
  });

  it('answers every pipelined request of a connection, in order, past the depth handed to the app at once', async () => {
    let inApp = 0;
    let most = 0;
    const app = new Hono<AppEnv>();
    app.get('/n/:n', async (c) => {
      inApp += 1;
      most = Math.max(most, inApp);
      await new Promise((r) => setTimeout(r, 2));
      inApp -= 1;
      return c.text(`<${c.req.param('n')}>`);
    });
    const at = await serve(app);
    const requests = Array.from({ length: 40 }, (_, i) => `GET /n/${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
    const { text, closed } = await raw(at, requests, /<39>$/);
    expect(closed).toBe(false);
    expect([...text.matchAll(/<(\d+)>/g)].map((m) => Number(m[1]))).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
  });

  it('reads a multipart form (parseBody), and drains a body the route did not read for the next request', async () => {
    const at = await serve(testApp());
    const form = new FormData();
    form.set('name', 'media');
    form.set('file', new Blob(['bytes']), 'a.txt');
    const r = await fetch(`http://${at}/form`, { method: 'POST', body: form });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { name: string }).name).toBe('media');
    const body = 'z'.repeat(256 * 1024);
    const { text, closed } = await raw(
      at,
      `POST /ignore-body HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}GET /ok HTTP/1.1\r\nHost: x\r\n\r\n`,
      /"ok":true/,
    );
    expect(closed).toBe(false);
    expect(text).toMatch(/POST ignored/);
  });
});
