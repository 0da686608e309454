import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

function openStream(
  url: string,
  token: string,
): Promise<{ chunks: string[]; res: http.IncomingMessage; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/v1/events`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: string[] = [];
      res.on('data', (d: Buffer) => chunks.push(d.toString()));
      resolve({ chunks, res, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('GET /events', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox();
  });
  afterAll(() => s.close());

  it('streams notification and progress events to a viewer, ending progress with done:true', async () => {
    const stream = await openStream(s.url, s.token);
    try {
      expect(stream.res.headers['content-type']).toContain('text/event-stream');
      await until(() => stream.chunks.join('').includes(': connected'));
      s.server.ctx.events.publish({
        type: 'notification',
        id: 812,
        data: { id: 812, eventType: 'disk_offline', severity: 'critical' },
      });
      const p = s.server.ctx.events.progress('op-1', 'share_data.delete', 'media');
      p.update({ filesDeleted: 1 }, 1_000);
      p.update({ filesDeleted: 2 }, 1_100); // throttled (≤ 4/s)
      p.finish({ filesDeleted: 3 });
      await until(() => stream.chunks.join('').includes('"done":true'));
      const text = stream.chunks.join('');
      expect(text).toContain('event: notification\ndata: {"id":812');
      expect(text).toContain('id: 812');
      expect(text.match(/event: progress/g)).toHaveLength(2);
      expect(text).not.toContain('"filesDeleted":2');
    } finally {
      stream.close();
    }
  });

  it('publishes the latest update of a busy window at its end (a burst never leaves the bar behind)', async () => {
    const stream = await openStream(s.url, s.token);
    try {
      await until(() => stream.chunks.join('').includes(': connected'));
      const p = s.server.ctx.events.progress('op-2', 'parity.sync', 'array', 100);
      p.update({ percent: 0 });
      p.update({ percent: 10 }); // within 100 ms: held
      p.update({ percent: 20 }); // replaces it
      await until(() => stream.chunks.join('').includes('"percent":20'));
      const text = stream.chunks.join('');
      expect(text).not.toContain('"percent":10');
      expect(text.indexOf('"percent":0')).toBeLessThan(text.indexOf('"percent":20'));
      p.finish({ percent: 100 });
      await until(() => stream.chunks.join('').includes('"done":true'));
    } finally {
      stream.close();
    }
  });

  it('refuses without a credential and is setup-gated', async () => {
    expect((await s.call('GET', '/events', undefined, { token: null })).status).toBe(401);
  });
});
