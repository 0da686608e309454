/**
 * System tests through the real server (Unix socket and TCP): config export and the import
 * preview's access rules, multipart framing, limits, faults, and "the preview writes nothing".
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  craftArchive,
  multipart,
  previewBody,
  tarBytes,
  zstd,
} from '@appliance/archive-preview/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../test-support/sandbox.ts';
import { rawRequest, type Target, treeListing, waitFor } from '../../../test-support/config-archive.ts';

const PASS = 'correct horse battery staple';

describe('config archive routes', () => {
  let s: Sandbox;
  let archive: Buffer;
  let tmpRoot: string;
  const unix = (): Target => ({ socket: s.socket });
  const tcp = (token: string | null = s.token): Target => ({ url: s.url, token });

  beforeAll(async () => {
    s = await startSandbox();
    tmpRoot = path.join(s.root, 'var/lib/appliance/tmp');
    const set = await s.call('PUT', '/settings', {
      hostname: 'nas',
      timezone: 'UTC',
      backupPassphrase: PASS,
    });
    expect(set.status).toBe(200);
    fs.mkdirSync(path.join(s.root, 'etc/appliance/samba'), { recursive: true });
    fs.writeFileSync(path.join(s.root, 'etc/appliance/samba/media.custom.conf'), 'x = 1\n');
    fs.mkdirSync(path.join(s.root, 'var/lib/appliance/stacks/web'), { recursive: true });
    fs.writeFileSync(path.join(s.root, 'var/lib/appliance/stacks/web/docker-compose.yml'), 'services: {}\n');
    fs.writeFileSync(path.join(s.root, 'var/lib/appliance/stacks/web/.env'), 'A=1\n', { mode: 0o600 });
  });
  afterAll(async () => {
    await s.close();
  });

  /** Runs a request and asserts the preview wrote nothing. */
  async function unchanged<T>(fn: () => Promise<T>): Promise<T> {
    const db = s.dumpDatabase();
    const tree = treeListing(s.root, [tmpRoot]);
    const result = await fn();
    expect(await waitFor(() => !fs.existsSync(tmpRoot) || fs.readdirSync(tmpRoot).length === 0)).toBe(true);
    expect(s.dumpDatabase()).toBe(db);
    expect(treeListing(s.root, [tmpRoot])).toEqual(tree);
    return result;
  }

  const preview = (target: Target, body: { body: Buffer; contentType: string }) =>
    rawRequest(target, 'POST', '/config/import/preview', body.body, { 'content-type': body.contentType });

  it('exports a streamed archive with the right headers and an audit row', async () => {
    const r = await rawRequest(tcp(), 'POST', '/config/export', Buffer.alloc(0));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/zstd');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.headers['content-disposition']).toMatch(
      /^attachment; filename="appliance-config-nas-\d{8}T\d{6}Z\.tar\.zst"$/,
    );
    archive = r.body;
    expect(archive.subarray(0, 4)).toEqual(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
    const exports = () => (s.dumpDatabase().match(/config\.export[^\n]*\\"outcome\\":\\"ok/g) ?? []).length;
    expect(await waitFor(() => exports() === 1)).toBe(true);
    const empty = await rawRequest(tcp(), 'POST', '/config/export', Buffer.from('{}'), {
      'content-type': 'application/json',
    });
    expect(empty.status).toBe(200);
    expect(await waitFor(() => exports() === 2)).toBe(true);
    const bad = await rawRequest(tcp(), 'POST', '/config/export', Buffer.from('{"x":1}'), {
      'content-type': 'application/json',
    });
    expect(bad.status).toBe(400);
    expect(bad.json().code).toBe('bad_request');
    expect((await rawRequest(tcp(null), 'POST', '/config/export', Buffer.alloc(0))).status).toBe(401);
  });

  it('previews its own export: no blockers, 7 empty groups, secrets opened (Unix socket and TCP)', async () => {
    for (const target of [unix(), tcp()]) {
      const r = await unchanged(() => preview(target, previewBody(archive)));
      expect(r.status).toBe(200);
      const body = r.json();
      expect(body.blockers).toEqual([]);
      expect(body.groups).toHaveLength(7);
      const sizes = (body.groups as { added: unknown[]; changed: unknown[]; removed: unknown[] }[]).map(
        (g) => g.added.length + g.changed.length + g.removed.length,
      );
      expect(sizes).toEqual([0, 0, 0, 0, 0, 0, 0]);
      expect(body.secrets).toEqual({ status: 'opened', identity: 'opened', stacks: [] });
    }
    expect((await preview(tcp(null), previewBody(archive))).status).toBe(401);
  });

  it('refuses bad multipart framing and fields with 400 bad_request and details.issues', async () => {
    const cases: [string, { body: Buffer; contentType: string }][] = [
      ['missing archive', multipart([{ name: 'passphrase', value: 'x' }])],
      [
        'repeated archive',
        multipart([
          { name: 'archive', filename: 'a', data: archive },
          { name: 'archive', filename: 'b', data: archive },
        ]),
      ],
      [
        'passphrase sent as a file',
        multipart([
          { name: 'archive', filename: 'a', data: archive },
          { name: 'passphrase', filename: 'p', data: Buffer.from('x') },
        ]),
      ],
      [
        'unknown part',
        multipart([
          { name: 'archive', filename: 'a', data: archive },
          { name: 'extra', value: '1' },
        ]),
      ],
      ['passphrase too long', previewBody(archive, 'x'.repeat(1025))],
      ['passphrase too many bytes', previewBody(archive, '\u{1F600}'.repeat(1025 / 2 + 600))],
      [
        'two passphrases',
        multipart([
          { name: 'archive', filename: 'a', data: archive },
          { name: 'passphrase', value: 'a' },
          { name: 'passphrase', value: 'b' },
        ]),
      ],
      ['not multipart', { body: Buffer.from('{}'), contentType: 'application/json' }],
      ['no boundary', { body: archive, contentType: 'multipart/form-data' }],
    ];
    for (const [what, body] of cases) {
      const r = await unchanged(() => preview(unix(), body));
      expect(r.status, what).toBe(400);
      expect(r.json().code, what).toBe('bad_request');
      expect(Array.isArray(r.json().details.issues), what).toBe(true);
    }
  });

  it('refuses hostile archives with 400 invalid_archive, nothing left behind (scenario 10)', async () => {
    const DB = 'x';
    const cases: Buffer[] = [
      craftArchive({ 'state.db': DB }, [
        { name: 'custom/l.custom.conf', type: 'SymbolicLink', linkpath: '/etc/shadow' },
      ]),
      craftArchive({ 'state.db': DB }, [{ name: 'custom/../../x', body: 'x' }]),
      craftArchive({ 'state.db': DB }, [{ name: 'templates/unlisted', body: 'x' }]),
      zstd(
        tarBytes([
          { name: 'state.db', body: 'tampered' },
          { name: 'manifest.json', body: JSON.stringify({}) },
        ]),
      ),
      craftArchive({ 'custom/a.custom.conf': 'x' }),
      craftArchive({ 'state.db': 'not a database' }),
      Buffer.from('garbage garbage garbage'),
      archive.subarray(0, archive.length - 100),
    ];
    for (const bytes of cases) {
      const r = await unchanged(() => preview(unix(), previewBody(bytes)));
      expect(r.status).toBe(400);
      expect(r.json().code).toBe('invalid_archive');
    }
  });

  it('answers 413 archive_too_large mid-stream with Connection: close, without reading the rest', async () => {
    const bomb = zstd(
      tarBytes([{ name: 'templates/huge', body: '', size: 600 * 1024 * 1024 }], { end: false }),
    );
    const head = multipart([{ name: 'archive', filename: 'a', data: bomb }], 'bomb-boundary');
    const open = head.body.subarray(0, head.body.length - '\r\n--bomb-boundary--\r\n'.length);
    // Then a zstd skippable frame that goes on and on: a long body the server never needs to read.
    const skippable = Buffer.alloc(8 * 1024 * 1024);
    skippable.writeUInt32LE(0x184d2a50, 0);
    skippable.writeUInt32LE(0xffffffff, 4);
    const r = await unchanged(() =>
      rawRequest(unix(), 'POST', '/config/import/preview', [open, skippable], {
        'content-type': head.contentType,
        'content-length': String(200 * 1024 * 1024),
      }),
    );
    expect(r.status).toBe(413);
    expect(r.json().code).toBe('archive_too_large');
    expect(r.json().details.limitBytes).toBe(512 * 1024 * 1024);
    expect(r.headers['connection']).toBe('close');
    const declared = await unchanged(() =>
      rawRequest(unix(), 'POST', '/config/import/preview', Buffer.alloc(0), {
        'content-type': head.contentType,
        'content-length': String(600 * 1024 * 1024),
      }),
    );
    expect(declared.status).toBe(413);
    // body size comes before the credential: an unauthenticated oversize upload over TCP is a 413 too
    const anonymous = await unchanged(() =>
      rawRequest(tcp(null), 'POST', '/config/import/preview', Buffer.alloc(0), {
        'content-type': head.contentType,
        'content-length': String(600 * 1024 * 1024),
      }),
    );
    expect(anonymous.status).toBe(413);
    expect(anonymous.json().code).toBe('archive_too_large');
  });

  it('refuses a wrong sent passphrase with 400 backup_passphrase_incorrect', async () => {
    const r = await unchanged(() => preview(unix(), previewBody(archive, 'not the passphrase')));
    expect(r.status).toBe(400);
    expect(r.json()).toEqual({
      code: 'backup_passphrase_incorrect',
      message: "The passphrase does not open the archive's secrets.age or identity.age.",
    });
  });

  it('shows a blocker (unsafe live path) as a 200 with blockers', async () => {
    const link = path.join(s.root, 'etc/appliance/linked.custom.conf');
    fs.symlinkSync('/etc/hostname', link);
    try {
      const r = await unchanged(() => preview(unix(), previewBody(archive)));
      expect(r.status).toBe(200);
      expect(r.json().blockers).toEqual([
        {
          code: 'restore_path_unsafe',
          message:
            'Restoring files: /etc/appliance/linked.custom.conf is a symbolic link, which is never followed.',
        },
      ]);
    } finally {
      fs.rmSync(link);
    }
  });

  it('answers 500 internal when the configured passphrase cannot be unsealed (injected fault)', async () => {
    const sqlite = s.server.ctx.sqlite;
    const saved = sqlite.prepare('SELECT backup_passphrase FROM settings WHERE id = 1').get() as {
      backup_passphrase: Buffer;
    };
    sqlite
      .prepare('UPDATE settings SET backup_passphrase = ? WHERE id = 1')
      .run(Buffer.from('not sealed at all, garbage bytes'));
    try {
      const r = await unchanged(() => preview(unix(), previewBody(archive)));
      expect(r.status).toBe(500);
      expect(r.json().code).toBe('internal');
    } finally {
      sqlite.prepare('UPDATE settings SET backup_passphrase = ? WHERE id = 1').run(saved.backup_passphrase);
    }
  });

  it('removes its temp directory when the client disconnects mid-upload', async () => {
    const db = s.dumpDatabase();
    const from = s.logs.length;
    const body = previewBody(Buffer.concat([archive, Buffer.alloc(4 * 1024 * 1024)]));
    await new Promise<void>((resolve) => {
      const req = http.request({
        socketPath: s.socket,
        method: 'POST',
        path: '/api/v1/config/import/preview',
        headers: { 'content-type': body.contentType, 'content-length': String(body.body.length) },
      });
      req.on('error', () => resolve());
      req.write(body.body.subarray(0, Math.floor(archive.length / 2)));
      setTimeout(() => {
        expect(fs.readdirSync(tmpRoot).length).toBe(1);
        req.destroy();
        resolve();
      }, 300);
    });
    expect(await waitFor(() => fs.readdirSync(tmpRoot).length === 0, 5000)).toBe(true);
    expect(s.dumpDatabase()).toBe(db);
    // logged as what it is, at info, never as an unexpected failure (issue 25)
    const route = '/api/v1/config/import/preview';
    const lines = () =>
      s.logs
        .slice(from)
        .map((l) => JSON.parse(l) as { level: string; msg: string; route?: string; status?: number });
    expect(await waitFor(() => lines().some((l) => l.msg === 'request' && l.route === route), 5000)).toBe(
      true,
    );
    expect(lines().filter((l) => l.level !== 'info')).toEqual([]);
    expect(lines().find((l) => l.msg === 'client disconnected')).toMatchObject({ level: 'info', route });
    expect(lines().find((l) => l.msg === 'request')).toMatchObject({ route, status: 400 });
  });
});

describe('before an admin exists (scenario 11)', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox({ admin: false });
  });
  afterAll(async () => {
    await s.close();
  });

  it('refuses the preview on TCP with 409 setup_required and serves it on the Unix socket with bareMetal', async () => {
    const archive = craftArchive({ 'state.db': 'x' });
    const body = previewBody(archive);
    const overTcp = await rawRequest({ url: s.url }, 'POST', '/config/import/preview', body.body, {
      'content-type': body.contentType,
    });
    expect(overTcp.status).toBe(409);
    expect(overTcp.json().code).toBe('setup_required');
    // Export stays gated on both listeners.
    expect((await rawRequest({ socket: s.socket }, 'POST', '/config/export', Buffer.alloc(0))).status).toBe(
      409,
    );
    // A real archive of this very box, made through its own export function, previews over the socket.
    const { startExport } = await import('@appliance/archive-preview');
    const { exportDeps } = await import('./deps.ts');
    const exp = await startExport(exportDeps(s.server.ctx, '0.1.0'));
    const chunks: Buffer[] = [];
    for await (const c of exp.stream) chunks.push(c as Buffer);
    const good = previewBody(Buffer.concat(chunks));
    const overSocket = await rawRequest({ socket: s.socket }, 'POST', '/config/import/preview', good.body, {
      'content-type': good.contentType,
    });
    expect(overSocket.status).toBe(200);
    expect(overSocket.json().bareMetal).toEqual({
      schemaUpgrade: false,
      disks: [],
      diskMapping: { disks: [] },
    });
  });
});
