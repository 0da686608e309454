// The reference of 06 §8, exactly: `new Hono().all('*', (c) => c.json({ ok: true }))` on
// @hono/node-server, plain HTTP on 127.0.0.1. Prints the harness's "listening" line.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono().all('*', (c) => c.json({ ok: true }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${info.port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
