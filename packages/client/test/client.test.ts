import fs from 'node:fs';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  createClient,
  parseSse,
  resolvePath,
  type ServerEvent,
} from '../src/index.ts';
import { makeTlsFiles } from '@appliance/lab';

let s: Sandbox;
beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
});
afterAll(async () => {
  await s?.close();
});

describe('calls over the socket and TCP', () => {
  it('answers typed JSON on both transports, equal to the raw API', async () => {
    const unix = createClient({ socket: s.socket });
    const tcp = createClient({ url: s.url, token: s.token });
    const created = await unix.post('/users', {
      body: { username: 'alice', role: 'viewer', password: 'alice password' },
    });
    expect(created.role).toBe('viewer');
    const one = await tcp.get('/users/{id}', { params: { id: created.id } });
    expect(one).toEqual(created);
    const list = await tcp.get('/users');
    expect(list).toEqual((await s.call('GET', '/users')).body);
    expect(list.users.map((u) => u.username)).toEqual(['admin', 'alice']);
    const deleted = await unix.delete('/users/{id}', { params: { id: created.id } });
    expect(deleted).toBeUndefined();
  });

  it('turns error answers into ApiError with status, code, message and details', async () => {
    const unix = createClient({ socket: s.socket });
    const err = await unix.post('/users', { body: { username: 'root' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'username_unavailable' });
    const bad = (await unix
      // @ts-expect-error: an unknown field is refused by the types and by the server
      .post('/users', { body: { username: 'bob', colour: 'red' } })
      .catch((e: unknown) => e)) as ApiError;
    expect(bad.status).toBe(400);
    expect(bad.code).toBe('bad_request');
    expect(bad.details?.['issues']).toBeInstanceOf(Array);
    const anon = createClient({ url: s.url });
    await expect(anon.get('/users')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('reports an unreachable service as ConnectionError', async () => {
    const gone = createClient({ socket: '/nonexistent/appliance.sock' });
    const err = (await gone.get('/users').catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.code).toBe('ENOENT');
    expect(err.message).toContain('/nonexistent/appliance.sock');
  });

  it('encodes path parameters and queries', () => {
    expect(resolvePath('/shares/{name}/data/delete', { name: 'a b/c' }, undefined)).toBe(
      '/shares/a%20b%2Fc/data/delete',
    );
    expect(resolvePath('/audit', undefined, { limit: 5, before: undefined })).toBe('/audit?limit=5');
  });

  it('streams a download and uploads multipart files', async () => {
    const unix = createClient({ socket: s.socket });
    const archive = await unix.download('post', '/config/export');
    expect(archive.filename).toMatch(/\.tar\.zst$/);
    const chunks: Buffer[] = [];
    for await (const c of archive.stream) chunks.push(c as Buffer);
    const file = `${s.root}/export.tar.zst`;
    fs.writeFileSync(file, Buffer.concat(chunks));
    const preview = await unix.upload('/config/import/preview', [{ name: 'archive', file }]);
    expect(preview.archive.schemaVersion).toBe(preview.liveSchemaVersion);
  });
});

describe('events()', () => {
  it('yields progress events published after the stream is connected, and ends on close()', async () => {
    const unix = createClient({ socket: s.socket });
    const stream = unix.events();
    await stream.connected;
    const p = s.server.ctx.events.progress('op-1', 'share_data.delete', 'media', 0);
    p.update({ filesDeleted: 1 });
    p.finish({ filesDeleted: 2 });
    const seen: ServerEvent[] = [];
    for await (const e of stream) {
      seen.push(e);
      if (e.type === 'progress' && e.data.done) stream.close();
    }
    expect(seen.map((e) => e.data)).toEqual([
      {
        operationId: 'op-1',
        operation: 'share_data.delete',
        target: 'media',
        done: false,
        progress: { filesDeleted: 1 },
      },
      {
        operationId: 'op-1',
        operation: 'share_data.delete',
        target: 'media',
        done: true,
        progress: { filesDeleted: 2 },
      },
    ]);
  });

  it('rejects `connected` with the API error of a refused stream', async () => {
    const anon = createClient({ url: s.url, token: 'apat_nope' });
    const stream = anon.events();
    await expect(stream.connected).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    await expect(
      (async () => {
        for await (const _ of stream) {
          /* nothing */
        }
      })(),
    ).rejects.toBeInstanceOf(ApiError);
  });

  it('parses SSE framing: comments, multi-line data, CRLF, split chunks', async () => {
    const comments: string[] = [];
    async function* chunks() {
      yield ': connected\r\n\r\nevent: progress\r\nda';
      yield 'ta: {"a":\ndata: 1}\nid: 7\n\n: ping\n\n';
    }
    const out = [];
    for await (const m of parseSse(chunks(), (c) => comments.push(c))) out.push(m);
    expect(out).toEqual([{ event: 'progress', data: '{"a":\n1}', id: '7' }]);
    expect(comments).toEqual(['connected', 'ping']);
  });
});

describe('HTTPS with a bearer token', () => {
  it('trusts the box certificate given as ca, and refuses an untrusted one', async () => {
    const tls = makeTlsFiles();
    const h = await startSandbox({
      admin: false,
      config: { tls: 'on', tlsCert: tls.cert, tlsKey: tls.key, logLevel: 'silent' },
    });
    try {
      expect(h.url).toMatch(/^https:/);
      const local = createClient({ socket: h.socket });
      await local.post('/setup/admin', { body: { username: 'admin', password: 'correct horse' } });
      const { token } = await local.post('/tokens', { body: { name: 'laptop', role: 'admin' } });
      const remote = createClient({ url: h.url, token, ca: fs.readFileSync(tls.ca) });
      expect((await remote.get('/users')).users[0]?.username).toBe('admin');
      const untrusted = createClient({ url: h.url, token });
      const err = (await untrusted.get('/users').catch((e: unknown) => e)) as ConnectionError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err.message).toContain('--ca');
    } finally {
      await h.close();
      fs.rmSync(tls.dir, { recursive: true, force: true });
    }
  });

  it('verifies the generated certificate on an address it names, and explains an address it does not', async () => {
    const g = await startSandbox({ admin: false, config: { tls: 'on', logLevel: 'silent' } });
    try {
      // the service's own self-signed certificate, trusted as is (what `--ca cert.pem` does)
      const ca = fs.readFileSync(`${g.root}/etc/appliance/tls/cert.pem`);
      const named = await createClient({ url: g.url, ca }).get('/setup/status');
      expect(named).toEqual({ setupRequired: true });
      const other = g.url.replace('127.0.0.1', 'localhost'); // a name the certificate leaves out
      const err = (await createClient({ url: other, ca })
        .get('/setup/status')
        .catch((e: unknown) => e)) as ConnectionError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(err.message).toContain('does not name this host');
    } finally {
      await g.close();
    }
  });
});
