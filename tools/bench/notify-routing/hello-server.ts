// The baseline of 04 §7, exactly as the spec defines it: a bare Hono hello-world on
// @hono/node-server (same Node binary). Prints the harness's "listening" line.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono().all('*', (c) => c.json({ ok: true }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${info.port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
