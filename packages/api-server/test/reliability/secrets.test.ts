/**
 * Secrets never leak (issue 9): a sandbox is driven through creating the admin (password), viewer
 * accounts and password changes, failed logins, tokens (admin, viewer, revoked), notification
 * channels with secrets (webhook header, Discord URL, SMTP password) including test sends that
 * succeed and fail, a backup passphrase, a config export, and template installs that generate and
 * take stack secrets (a private dockerd, as in the apps system tests). Then every response body
 * (the one answer that hands out a new token aside, for that token), every log line, every error
 * message and every file under the sandbox root (the stacks' `.env` files aside, which hold the
 * stack secrets by design) is scanned for each secret, raw and in the encodings a careless log
 * would use (base64, Basic credentials, percent-encoding).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../test-support/sandbox.ts';
import { type RawOptions, type RawResponse, rawRequest, startDiskFreeSandbox } from './support.ts';

let s: Sandbox;
let dockerd: PrivateDockerd;
let receiver: http.Server;
let receiverUrl = '';
const receivedHeaders: http.IncomingHttpHeaders[] = [];
const previousDockerHost = process.env['DOCKER_HOST'];

/** Every secret of the run: label → value. */
const secrets = new Map<string, string>();
/** Every answer: [request label, body bytes, secrets this answer may legitimately carry]. */
const answers: Array<{ label: string; bytes: Buffer; allowed: Set<string> }> = [];

const fresh = (label: string, prefix = '') => {
  const value = `${prefix}${randomBytes(12).toString('hex')}`;
  secrets.set(label, value);
  return value;
};

async function call(
  label: string,
  method: string,
  p: string,
  o: RawOptions & { token?: string | null; allowed?: string[] } = {},
): Promise<RawResponse> {
  const headers = { ...o.headers };
  const token = o.token === undefined ? secrets.get('admin token') : o.token;
  if (token && !headers['authorization']) headers['authorization'] = `Bearer ${token}`;
  const res = await rawRequest(s, method, p, { ...o, headers });
  answers.push({
    label: `${label}: ${method} ${p} → ${res.status}`,
    bytes: res.bytes,
    allowed: new Set(o.allowed ?? []),
  });
  return res;
}

const basic = (user: string, pass: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
});

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  receiver = http.createServer((req, res) => {
    receivedHeaders.push(req.headers);
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  dockerd = await startPrivateDockerd();
  process.env['DOCKER_HOST'] = dockerd.host;
  s = await startDiskFreeSandbox({ admin: false });
}, 180_000);

afterAll(async () => {
  await s?.close();
  await dockerd?.stop();
  if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previousDockerHost;
  await new Promise((r) => receiver?.close(r));
}, 120_000);

describe('driving the sandbox through every secret-bearing operation', () => {
  it('accounts, passwords and tokens', async () => {
    const adminPassword = fresh('admin password', 'pw-');
    expect(
      (
        await call('setup', 'POST', '/setup/admin', {
          token: null,
          json: { username: 'admin', password: adminPassword },
        })
      ).status,
    ).toBe(201);
    const wrong = fresh('a wrong password', 'wrong-');
    const failed = await call('failed login', 'POST', '/tokens', {
      token: null,
      headers: basic('admin', wrong),
      json: { name: 'x', role: 'admin' },
    });
    expect(failed.status).toBe(401);
    const tokenAnswer = await call('admin token', 'POST', '/tokens', {
      token: null,
      headers: basic('admin', adminPassword),
      json: { name: 'admin token', role: 'admin' },
    });
    expect(tokenAnswer.status).toBe(201);
    const adminToken = (tokenAnswer.body as { token: string }).token;
    secrets.set('admin token', adminToken);
    answers.at(-1)!.allowed.add('admin token');

    const viewerPassword = fresh('viewer password', 'vpw-');
    const viewer = await call('viewer', 'POST', '/users', {
      json: { username: 'watcher', role: 'viewer', password: viewerPassword },
    });
    expect(viewer.status, viewer.text).toBe(201);
    const viewerId =
      (viewer.body as { id?: string; user?: { id: string } }).id ??
      (viewer.body as { user: { id: string } }).user.id;
    const vt = await call('viewer token', 'POST', '/tokens', {
      token: null,
      headers: basic('watcher', viewerPassword),
      json: { name: 'viewer token', role: 'viewer' },
    });
    expect(vt.status, vt.text).toBe(201);
    secrets.set('viewer token', (vt.body as { token: string }).token);
    answers.at(-1)!.allowed.add('viewer token');

    const newViewerPassword = fresh('changed viewer password', 'npw-');
    const patch = await call('password change', 'PATCH', `/users/${viewerId}`, {
      json: { password: newViewerPassword },
    });
    expect(patch.status, patch.text).toBe(200);
    const shareOnlyPassword = fresh('share-only password', 'spw-');
    const so = await call('share-only', 'POST', '/users', {
      json: { username: 'family', role: 'share-only', password: shareOnlyPassword },
    });
    expect(so.status, so.text).toBe(201);
    // A share-only account cannot get a token (its password is still checked, and must not leak).
    const soToken = await call('share-only token', 'POST', '/tokens', {
      token: null,
      headers: basic('family', shareOnlyPassword),
      json: { name: 'nope', role: 'viewer' },
    });
    expect(soToken.status).toBe(403);

    const doomed = await call('doomed token', 'POST', '/tokens', { json: { name: 'doomed', role: 'admin' } });
    expect(doomed.status).toBe(201);
    secrets.set('revoked token', (doomed.body as { token: string }).token);
    answers.at(-1)!.allowed.add('revoked token');
    const del = await call('revoke', 'DELETE', `/tokens/${(doomed.body as { id: string }).id}`);
    expect(del.status).toBe(204);
    const dead = await call('revoked use', 'GET', '/users', { token: secrets.get('revoked token')! });
    expect(dead.status).toBe(401);
    // Listing tokens and users shows no secret.
    expect((await call('list tokens', 'GET', '/tokens')).status).toBe(200);
    expect((await call('list users', 'GET', '/users')).status).toBe(200);
    expect(
      (await call('viewer lists', 'GET', '/users', { token: secrets.get('viewer token')! })).status,
    ).toBe(200);
  });

  it('notification channels with secrets, test sends that work and that fail', async () => {
    const header = fresh('webhook header secret', 'whs-');
    const hook = await call('webhook', 'POST', '/notifications/channels', {
      json: {
        name: 'hook',
        type: 'webhook',
        webhookUrl: `${receiverUrl}/hook`,
        webhookAuthHeaderName: 'X-Auth',
        secret: header,
      },
    });
    expect(hook.status, hook.text).toBe(201);
    const hookId = (hook.body as { id: string }).id;
    const sent = await call('webhook test', 'POST', `/notifications/channels/${hookId}/test`);
    expect(sent.status, sent.text).toBe(200);
    expect(receivedHeaders.some((h) => h['x-auth'] === header)).toBe(true);

    const replaced = fresh('replaced webhook header secret', 'whr-');
    const put = await call('webhook replace', 'PUT', `/notifications/channels/${hookId}`, {
      json: {
        name: 'hook',
        type: 'webhook',
        webhookUrl: 'http://127.0.0.1:1/unreachable',
        webhookAuthHeaderName: 'X-Auth',
        secret: replaced,
      },
    });
    expect(put.status, put.text).toBe(200);
    const failing = await call('webhook test failing', 'POST', `/notifications/channels/${hookId}/test`);
    expect(failing.status).toBeLessThan(500);

    const discordSecret = fresh('discord webhook token', 'dsc');
    const discord = await call('discord', 'POST', '/notifications/channels', {
      json: {
        name: 'discord',
        type: 'discord',
        secret: `http://127.0.0.1:1/api/webhooks/1/${discordSecret}`,
      },
    });
    expect(discord.status, discord.text).toBe(201);
    const dTest = await call(
      'discord test failing',
      'POST',
      `/notifications/channels/${(discord.body as { id: string }).id}/test`,
    );
    expect(dTest.status).toBeLessThan(500);

    const smtp = fresh('smtp password', 'smtp-');
    const mail = await call('email', 'POST', '/notifications/channels', {
      json: {
        name: 'mail',
        type: 'email',
        secret: smtp,
        emailHost: '127.0.0.1',
        emailPort: 1,
        emailUsername: 'nas',
        emailFrom: 'nas@example.org',
        emailTo: ['me@example.org'],
      },
    });
    expect(mail.status, mail.text).toBe(201);
    const mTest = await call(
      'email test failing',
      'POST',
      `/notifications/channels/${(mail.body as { id: string }).id}/test`,
    );
    expect(mTest.status).toBeLessThan(500);
    // Refused writes echo nothing back either.
    const refused = await call('channel refused', 'POST', '/notifications/channels', {
      json: { name: 'hook', type: 'webhook', webhookUrl: 'not a url', secret: smtp },
    });
    expect(refused.status).toBe(400);
    for (const who of ['admin token', 'viewer token'])
      expect(
        (await call(`channels as ${who}`, 'GET', '/notifications/channels', { token: secrets.get(who)! }))
          .status,
      ).toBe(200);
    expect((await call('alerts', 'GET', '/notifications/alerts')).status).toBe(200);
  });

  it('the backup passphrase and a config export', async () => {
    const passphrase = fresh('backup passphrase', 'backup-passphrase-');
    const put = await call('settings', 'PUT', '/settings', {
      json: { hostname: 'nas', timezone: 'UTC', backupPassphrase: passphrase },
    });
    expect(put.status, put.text).toBe(200);
    const tooShort = await call('settings refused', 'PUT', '/settings', {
      json: { hostname: 'nas', timezone: 'UTC', backupPassphrase: passphrase.slice(0, 8) },
    });
    expect(tooShort.status).toBe(400);
    expect((await call('settings read', 'GET', '/settings')).status).toBe(200);
    const exported = await call('export', 'POST', '/config/export');
    expect(exported.status, exported.text.slice(0, 200)).toBe(200);
    // The archive is compressed: scan its decompressed bytes too.
    const bytes = exported.bytes;
    let plain: Buffer | null = null;
    for (const inflate of [zlib.zstdDecompressSync, zlib.gunzipSync]) {
      try {
        plain = inflate(bytes);
        break;
      } catch {
        /* another format */
      }
    }
    expect(plain, 'the export archive could not be decompressed for the scan').not.toBeNull();
    answers.push({ label: 'export (decompressed)', bytes: plain!, allowed: new Set() });
    expect(plain!.includes('manifest.json')).toBe(true);
    // …and import previews of it through the socket and TCP, with the right and a wrong passphrase.
    const wrongPassphrase = fresh('wrong backup passphrase', 'not-the-passphrase-');
    for (const [pass, via] of [
      [passphrase, 'unix'],
      [wrongPassphrase, 'tcp'],
    ] as const) {
      const boundary = `----reliability${randomBytes(8).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="passphrase"\r\n\r\n${pass}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.zst"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const preview = await call(`import preview (${via})`, 'POST', '/config/import/preview', {
        via,
        raw: body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      if (pass === passphrase) {
        expect(preview.status, preview.text.slice(0, 300)).toBe(200);
        expect(JSON.stringify(preview.body)).toMatch(/opened/);
      } else {
        expect(preview.status, preview.text.slice(0, 300)).toBe(400);
        expect((preview.body as { code: string }).code).toBe('backup_passphrase_incorrect');
      }
    }
  });

  it('template installs that generate and take stack secrets', async () => {
    const install = await call('install vaultwarden', 'POST', '/templates/vaultwarden/install', { json: {} });
    expect(install.status, install.text).toBe(201);
    const envFile = path.join(s.root, 'var/lib/appliance/stacks/vaultwarden/.env');
    const env = fs.readFileSync(envFile, 'utf8');
    const generated = /^ADMIN_TOKEN=(.+)$/m.exec(env)?.[1];
    expect(generated, env).toBeDefined();
    expect(generated!.length).toBeGreaterThanOrEqual(16);
    secrets.set('generated stack secret', generated!);
    const supplied = fresh('supplied stack secret', 'supplied-');
    const second = await call('install with a supplied secret', 'POST', '/templates/vaultwarden/install', {
      json: { name: 'vault2', values: { ADMIN_TOKEN: supplied } },
    });
    expect(second.status, second.text).toBe(201);
    expect(fs.readFileSync(path.join(s.root, 'var/lib/appliance/stacks/vault2/.env'), 'utf8')).toContain(
      supplied,
    );
    const refusedSecret = fresh('refused install secret', 'refused-');
    const refused = await call('install refused', 'POST', '/templates/vaultwarden/install', {
      json: { name: 'vault2', values: { ADMIN_TOKEN: refusedSecret } },
    });
    expect(refused.status).toBe(409);
    const preview = await call('preview with a secret', 'POST', '/templates/vaultwarden/preview', {
      json: { name: 'vault3', values: { ADMIN_TOKEN: refusedSecret } },
    });
    expect(preview.status, preview.text).toBe(200);
    expect((await call('stacks', 'GET', '/stacks')).status).toBe(200);
    expect((await call('audit', 'GET', '/audit')).status).toBe(200);
    const exported = await call('export with stacks', 'POST', '/config/export');
    expect(exported.status).toBe(200);
    answers.push({
      label: 'export with stacks (decompressed)',
      bytes: zlib.zstdDecompressSync(exported.bytes),
      allowed: new Set(),
    });
  });
});

/** The forms a secret could take in a careless log or file. */
function forms(value: string): string[] {
  return [
    value,
    Buffer.from(value).toString('base64'),
    Buffer.from(`admin:${value}`).toString('base64'),
    Buffer.from(`watcher:${value}`).toString('base64'),
    encodeURIComponent(value),
  ];
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

describe('the scan', () => {
  it('covered every kind of secret', () => {
    expect([...secrets.keys()].sort()).toEqual(
      [
        'a wrong password',
        'admin password',
        'admin token',
        'backup passphrase',
        'changed viewer password',
        'discord webhook token',
        'generated stack secret',
        'refused install secret',
        'replaced webhook header secret',
        'revoked token',
        'share-only password',
        'smtp password',
        'supplied stack secret',
        'viewer password',
        'viewer token',
        'webhook header secret',
        'wrong backup passphrase',
      ].sort(),
    );
  });

  it('would see a secret where one is (the answer that hands out a token carries it)', () => {
    const handout = answers.find((a) => a.allowed.has('admin token'));
    expect(handout?.bytes.includes(secrets.get('admin token')!)).toBe(true);
  });

  it('finds no secret in any response body or error message', () => {
    const leaks: string[] = [];
    for (const a of answers)
      for (const [label, value] of secrets) {
        if (a.allowed.has(label)) continue;
        for (const f of forms(value)) if (a.bytes.includes(f)) leaks.push(`${label} in ${a.label}`);
      }
    expect(leaks).toEqual([]);
    expect(answers.length).toBeGreaterThan(30);
  });

  it('finds no secret in any log line', () => {
    expect(s.logs.length).toBeGreaterThan(30);
    const leaks: string[] = [];
    for (const line of s.logs)
      for (const [label, value] of secrets)
        for (const f of forms(value))
          if (line.includes(f)) leaks.push(`${label} in log: ${line.slice(0, 200)}`);
    expect(leaks).toEqual([]);
  });

  it('finds no secret in any file under the sandbox root but the stacks’ .env files', () => {
    const files = filesUnder(s.root);
    const envFiles = files.filter((f) => /\/var\/lib\/appliance\/stacks\/[^/]+\/\.env$/.test(f));
    expect(envFiles.length).toBe(2);
    for (const f of envFiles) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
    const leaks: string[] = [];
    for (const f of files) {
      if (envFiles.includes(f)) continue;
      const bytes = fs.readFileSync(f);
      for (const [label, value] of secrets)
        for (const form of forms(value))
          if (bytes.includes(form)) leaks.push(`${label} in ${path.relative(s.root, f)}`);
    }
    expect(leaks).toEqual([]);
    expect(files.some((f) => f.endsWith('state.db'))).toBe(true);
  });
});
