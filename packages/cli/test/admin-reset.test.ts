/**
 * `appliance admin reset-password` against a real server: the password changes (the old one stops
 * working), credential_reset reaches a routed webhook and SMTP receiver once per reset, naming the
 * account and how it was reset; the route exists on the Unix socket only.
 */
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { startHttpReceiver, startSmtpReceiver } from '@appliance/notify-routing/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance } from './support.ts';

let s: Sandbox;
let http: Awaited<ReturnType<typeof startHttpReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
const cli = (args: string[], input?: string) =>
  appliance([...args, '--socket', s.socket], input === undefined ? {} : { input });
const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
const login = (password: string) =>
  s.call(
    'POST',
    '/tokens',
    { name: 'probe', role: 'admin' },
    { token: null, headers: { authorization: basic(password) } },
  );
const delivered = async (n: number) => {
  const end = Date.now() + 5000;
  while (Date.now() < end && (http.received.length < n || smtp.mails.length < n))
    await new Promise((r) => setTimeout(r, 25));
  return { hooks: http.received.map((r) => JSON.parse(r.body)), mails: smtp.mails };
};

beforeAll(async () => {
  http = await startHttpReceiver();
  smtp = await startSmtpReceiver();
  s = await startSandbox({ config: { logLevel: 'silent' } });
  const hook = await s.call('POST', '/notifications/channels', {
    name: 'h',
    type: 'webhook',
    webhookUrl: http.url('/h'),
  });
  const mail = await s.call('POST', '/notifications/channels', {
    name: 'm',
    type: 'email',
    emailHost: '127.0.0.1',
    emailPort: smtp.port,
    emailFrom: 'nas@example.com',
    emailTo: ['admin@example.com'],
    emailStartTls: false,
  });
  const routed = await s.call('PUT', '/notifications/routing/credential_reset', {
    severity: 'critical',
    channelIds: [hook.body.id, mail.body.id],
  });
  expect(routed.status).toBe(200);
});
afterAll(async () => {
  await s?.close();
  await http?.close();
  await smtp?.close();
});

describe('appliance admin reset-password', () => {
  it('over TCP the route does not exist (404 before anything else), nothing written', async () => {
    const before = s.dumpDatabase();
    const r = await s.call('POST', '/admin/reset-password', { password: 'another password 1' });
    expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    const bad = await s.call('POST', '/admin/reset-password', { nonsense: true }, { token: null });
    expect(bad.status).toBe(404);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('resets the password from stdin; credential_reset delivered once, naming the account', async () => {
    const r = await cli(['admin', 'reset-password', '--password-stdin'], 'a brand new password');
    expect(r.stderr).toBe('Reset the password of the administrator admin.\n');
    expect(r.code).toBe(0);
    const { hooks, mails } = await delivered(1);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      eventType: 'credential_reset',
      severity: 'critical',
      title: expect.stringMatching(/^Administrator password reset on \S+$/),
    });
    expect(hooks[0].message).toMatch(
      /^The password of the administrator admin of \S+ was reset on the appliance itself \(appliance admin reset-password, through the service's Unix socket\) at \S+\. If you did not do this/,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.data).toMatch(/Subject: \[critical\] Administrator password reset on/);
    expect((await login(s.adminPassword)).status).toBe(401);
    expect((await login('a brand new password')).status).toBe(201);
    const entries = (await s.call('GET', '/audit', undefined, { via: 'unix' })).body.entries;
    expect(entries.find((e: { operation: string }) => e.operation === 'admin.reset_password')).toMatchObject({
      target: 'admin',
      details: { tokensRevoked: 0 },
    });
  });

  it('--revoke-tokens also revokes the administrator’s tokens; each reset is one more event', async () => {
    const r = await cli(
      ['admin', 'reset-password', '--password-stdin', '--revoke-tokens'],
      'the third password',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^Reset the password of the administrator admin and revoked \d+ API tokens?\.\n$/,
    );
    expect((await s.call('GET', '/health')).status).toBe(401);
    const { hooks } = await delivered(2);
    expect(hooks).toHaveLength(2);
    expect(hooks[1].message).toMatch(/API tokens? of the account (was|were) revoked/);
  });

  it('without a terminal and without --password-stdin: a usage error (exit 2), nothing sent', async () => {
    const r = await cli(['admin', 'reset-password']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--password-stdin');
    expect(http.received).toHaveLength(2);
  });
});
