import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type FetchHandler, createRequestListener } from './listener.ts';
import { LightResponse } from './response.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const failures: unknown[] = [];
async function serve(handler: FetchHandler): Promise<string> {
  const server = http.createServer(
    createRequestListener(handler, {
      badRequest: (message) =>
        LightResponse.json({ code: 'bad_request', message }, { status: 400 }) as unknown as Response,
      failed: (err) => {
        failures.push(err);
        return new LightResponse('failed', { status: 500 }) as unknown as Response;
      },
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** One raw HTTP/1.1 exchange (or several on one connection): what the server wrote, until it closed or `until` matched. */
function raw(
  hostPort: string,
  data: string | Buffer[],
  until?: RegExp,
  timeoutMs = 5000,
): Promise<{ text: string; closed: boolean }> {
  const [host, port] = hostPort.split(':');
  return new Promise((resolve) => {
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
    for (const part of typeof data === 'string' ? [Buffer.from(data)] : data) socket.write(part);
  });
}

describe('createRequestListener', () => {
  it('gives the handler the URL, method, headers and body, and writes a string answer with its length', async () => {
    const seen: unknown[] = [];
    const at = await serve(async (req) => {
      seen.push(req.url, req.method, req.headers.get('X-Thing'), await req.text());
      return new LightResponse('héllo', {
        status: 201,
        headers: { 'x-answer': 'yes' },
      }) as unknown as Response;
    });
    const res = await fetch(`http://${at}/a/b?c=1`, {
      method: 'POST',
      headers: { 'x-thing': 'one' },
      body: 'the body',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-length')).toBe('6');
    expect(res.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
    expect(res.headers.get('x-answer')).toBe('yes');
    expect(await res.text()).toBe('héllo');
    expect(seen).toEqual([`http://${at}/a/b?c=1`, 'POST', 'one', 'the body']);
  });

  it('writes each Set-Cookie on its own line, and an undici Response the same way as a light one', async () => {
    const Real = (await fetch('data:,x')).constructor as typeof Response;
    let light = true;
    const at = await serve(() => {
      const init = {
        headers: [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
          ['x-k', 'v'],
        ] as [string, string][],
      };
      return light ? (new LightResponse('l', init) as unknown as Response) : new Real('r', init);
    });
    for (const which of [true, false]) {
      light = which;
      const { text } = await raw(at, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(text.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: a=1', 'set-cookie: b=2']);
      // undici's body is a stream, written chunked.
      expect(text).toMatch(which ? /\r\n\r\nl$/ : /\r\n\r\n1\r\nr\r\n0\r\n\r\n$/);
    }
  });

  it('streams a stream body as the client reads it, and cancels it when the client leaves', async () => {
    let cancelled = false;
    let pulls = 0;
    const at = await serve(() => {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls += 1;
          controller.enqueue(new Uint8Array(64 * 1024).fill(97));
        },
        cancel() {
          cancelled = true;
        },
      });
      return new LightResponse(body) as unknown as Response;
    });
    const { text } = await raw(at, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', /a{1000}/);
    expect(text).toMatch(/transfer-encoding: chunked/i);
    await expect.poll(() => cancelled, { timeout: 5000 }).toBe(true);
    // Backpressure: the source was not read far ahead of a client that stopped reading.
    expect(pulls).toBeLessThan(200);
  });

  it('aborts the request signal when the client leaves before the answer', async () => {
    let aborted: Promise<string> | null = null;
    const at = await serve((req) => {
      aborted = new Promise((resolve) =>
        req.signal.addEventListener('abort', () => resolve(String(req.signal.reason))),
      );
      return new Promise(() => undefined);
    });
    await raw(at, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', undefined, 300);
    await expect.poll(() => aborted !== null).toBe(true);
    expect(await aborted!).toMatch(/closed the connection/);
  });

  it('answers 400 with a sentence to a target or Host that cannot form a URL, and never calls the handler', async () => {
    let called = 0;
    const at = await serve(() => {
      called += 1;
      return new LightResponse('no') as unknown as Response;
    });
    for (const head of [
      'GET /a\\..\\b HTTP/1.1\r\nHost: x',
      'GET /x HTTP/1.1\r\nHost: a@b',
      'GET /x HTTP/1.0',
    ]) {
      const { text } = await raw(at, `${head}\r\nConnection: close\r\n\r\n`);
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'bad_request' });
    }
    expect(called).toBe(0);
  });

  it('answers 500 through `failed` when the handler throws or rejects', async () => {
    failures.length = 0;
    let mode = 0;
    const at = await serve(() => {
      mode += 1;
      if (mode === 1) throw new Error('thrown');
      return Promise.reject(new Error('rejected'));
    });
    for (let i = 0; i < 2; i++) expect((await fetch(`http://${at}/`)).status).toBe(500);
    expect(failures.map((e) => (e as Error).message)).toEqual(['thrown', 'rejected']);
  });

  it('drains a body the handler did not read, so the same connection answers the next request', async () => {
    const at = await serve(
      (req) => new LightResponse(`${req.method} ${new URL(req.url).pathname}`) as unknown as Response,
    );
    const body = 'z'.repeat(256 * 1024);
    const { text, closed } = await raw(
      at,
      `POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}GET /two HTTP/1.1\r\nHost: x\r\n\r\n`,
      /GET \/two$/,
    );
    expect(closed).toBe(false);
    expect(text).toMatch(/POST \/one/);
    expect(text).toMatch(/GET \/two$/);
  });

  it('closes the connection when the unread rest of a body does not come within a second', async () => {
    const at = await serve(() => new LightResponse('early') as unknown as Response);
    const started = Date.now();
    const { text, closed } = await raw(
      at,
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nonly this',
      undefined,
      5000,
    );
    expect(text).toMatch(/early$/);
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(4000);
  });
});
