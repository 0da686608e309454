import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LightRequest } from './request.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe('LightRequest', () => {
  it('is built from a URL and an init as the standard Request is', async () => {
    const r = new LightRequest('http://box/a/./b?x', {
      method: 'post',
      headers: { 'X-A': '1' },
      body: 'payload',
    });
    expect([r.url, r.method, r.headers.get('x-a'), r.headers.get('content-type')]).toEqual([
      'http://box/a/b?x',
      'POST',
      '1',
      'text/plain;charset=UTF-8',
    ]);
    const copy = r.clone();
    expect(await r.text()).toBe('payload');
    expect(r.bodyUsed).toBe(true);
    await expect(r.json()).rejects.toThrow(TypeError);
    expect(await copy.bytes()).toEqual(new Uint8Array(Buffer.from('payload')));
    expect(() => new LightRequest('http://box/', { body: 'x' })).toThrow(TypeError);
    expect(() => new LightRequest('http://box/', { method: 'TRACE' })).toThrow(TypeError);
    expect(() => new LightRequest('not a url')).toThrow(TypeError);
    const again = new LightRequest(new LightRequest('http://box/', { method: 'PUT', body: '{"a":2}' }));
    expect([again.method, await again.json()]).toEqual(['PUT', { a: 2 }]);
  });

  it('reads a request Node parsed: headers in place, the body as text, bytes or a stream', async () => {
    const seen: unknown[] = [];
    const server = http.createServer(async (incoming, outgoing) => {
      const req = LightRequest.fromIncoming(incoming, outgoing, `http://h${incoming.url}`);
      if (incoming.url === '/text') seen.push(req.method, req.headers.get('x-k'), await req.text());
      else {
        const reader = req.body!.getReader();
        let n = 0;
        for (let c = await reader.read(); !c.done; c = await reader.read()) n += c.value.byteLength;
        seen.push(n, req.bodyUsed);
      }
      outgoing.end('ok');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    await fetch(`${at}/text`, { method: 'PATCH', headers: { 'x-k': 'v' }, body: 'hello' });
    await fetch(`${at}/stream`, { method: 'POST', body: Buffer.alloc(300_000, 1) });
    expect(seen).toEqual(['PATCH', 'v', 'hello', 300_000, false]);
  });
});
