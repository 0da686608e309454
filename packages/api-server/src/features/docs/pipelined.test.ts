/**
 * Issue 32, item 13: clients that pipeline `GET /openapi.json` (and `/docs`) and never read the
 * answers. The document is sent as one shared buffer, and Node's HTTP server stops reading from a
 * connection whose answers are not taken (under @hono/node-server, the service's adapter): the
 * server's memory stays bounded, and another client is still answered.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  killAll,
  type ServerProcess,
  sleep,
  startServerProcess,
} from '../../../test-support/server-process.ts';

const CONNECTIONS = 50;
const MiB = 1024 * 1024;

afterAll(async () => {
  await killAll();
});

const rssMiB = (pid: number) =>
  Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/**
 * A connection that writes pipelined requests for `path` as long as the server reads them, and never
 * reads an answer. Resolves with the bytes it could write once the server has stopped reading for
 * `stalledMs` (its writes no longer drain), or after `maxMs`.
 */
function flood(port: number, target: string, stalledMs: number, maxMs: number) {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause(); // never read
  socket.on('error', () => undefined);
  const request = Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(256));
  let written = 0;
  let lastDrain = Date.now();
  const result = new Promise<{ written: number; stalled: boolean }>((resolve) => {
    const started = Date.now();
    const step = () => {
      if (socket.destroyed) return resolve({ written, stalled: false });
      if (Date.now() - lastDrain > stalledMs) return resolve({ written, stalled: true });
      if (Date.now() - started > maxMs) return resolve({ written, stalled: false });
      while (socket.write(request)) written += request.length;
      written += request.length;
      const timer = setTimeout(step, stalledMs + 50);
      socket.once('drain', () => {
        clearTimeout(timer);
        lastDrain = Date.now();
        setImmediate(step);
      });
    };
    socket.once('connect', step);
  });
  return { socket, result };
}

describe('pipelined requests whose answers are never read (issue 32, item 13)', () => {
  let server: ServerProcess;
  let port: number;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-pipelined-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it(`keeps the memory bounded with ${CONNECTIONS} such connections, and answers another client`, async () => {
    server = await startServerProcess({ root, socket: path.join(root, 's.sock') });
    port = Number(new URL(server.url).port);
    // The document and the page are built on their first request.
    for (const p of ['/api/v1/openapi.json', '/api/v1/docs']) {
      const r = await fetch(`${server.url}${p}`);
      expect(r.status).toBe(200);
      expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    }
    await sleep(500);
    const before = rssMiB(server.pid);

    const floods = Array.from({ length: CONNECTIONS }, (_, i) =>
      flood(port, i % 2 ? '/api/v1/docs' : '/api/v1/openapi.json', 2000, 60_000),
    );
    const results = await Promise.all(floods.map((f) => f.result));
    // Every connection was stopped being read from: back-pressure, not a server that buffers.
    expect(results.filter((r) => r.stalled).length).toBe(CONNECTIONS);
    const sent = results.reduce((n, r) => n + r.written, 0);
    // The server's memory settles (two samples a second apart within 2 MiB) ...
    let saturated = rssMiB(server.pid);
    for (let i = 0; i < 30; i++) {
      await sleep(1000);
      const now = rssMiB(server.pid);
      if (Math.abs(now - saturated) < 2) break;
      saturated = now;
    }

    // ... another client is answered while the floods are still connected and pushing ...
    const t0 = Date.now();
    const other = await fetch(`${server.url}/api/v1/setup/status`, { signal: AbortSignal.timeout(10_000) });
    expect([other.status, await other.json()]).toEqual([200, { setupRequired: true }]);
    const otherMs = Date.now() - t0;

    // ... and stays bounded while they stay connected: what Node parsed of each connection before
    // it stopped reading (two reads of pipelined requests), not the documents (a shared buffer) nor
    // the app's work for each (8 at a time per connection). Without the shared buffer and the
    // depth, these 50 connections grew it by 500–760 MiB.
    await sleep(3000);
    const later = rssMiB(server.pid);
    console.info(
      `RSS ${before.toFixed(1)} MiB idle → ${saturated.toFixed(1)} with ${CONNECTIONS} stalled connections (${(sent / MiB).toFixed(1)} MiB of requests written) → ${later.toFixed(1)} 3 s later; another client answered in ${otherMs} ms`,
    );
    expect(saturated - before).toBeLessThan(CONNECTIONS * 7);
    expect(later - before).toBeLessThan(CONNECTIONS * 7);
    for (const f of floods) f.socket.destroy();
    // The connections gone, the service still answers.
    const after = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(after.status).toBe(200);
    await after.arrayBuffer();
  }, 120_000);
});
