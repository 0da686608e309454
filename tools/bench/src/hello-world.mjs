// The reference server of every throughput benchmark, exactly as 04 §7 and 06 §8 define it: a bare
// Hono hello-world (`new Hono().all('*', (c) => c.json({ ok: true }))`) on @hono/node-server, plain
// HTTP on 127.0.0.1, same Node binary. Prints the harness's "listening" line.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono().all('*', (c) => c.json({ ok: true }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${info.port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
