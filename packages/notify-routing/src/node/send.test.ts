import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationMessage } from '../core/message.ts';
import { startHttpReceiver } from '../test-support/http-receiver.ts';
import { startSmtpReceiver } from '../test-support/smtp-receiver.ts';
import { createChannelSender } from './send.ts';

const msg: NotificationMessage = {
  eventType: 'test',
  severity: 'info',
  title: 'Test notification from nas',
  message: 'It works.',
  occurredAt: '2026-11-22T09:00:00.000Z',
  host: 'nas',
};

describe('channel senders against a local receiver on 127.0.0.1', () => {
  let http: Awaited<ReturnType<typeof startHttpReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  const send = createChannelSender();

  beforeAll(async () => {
    http = await startHttpReceiver();
    smtp = await startSmtpReceiver();
  });
  afterAll(async () => {
    await http?.close();
    await smtp?.close();
  });

  it('webhook: really delivers the JSON payload with the configured headers', async () => {
    const result = await send(
      {
        type: 'webhook',
        config: {
          webhookUrl: http.url('/hook'),
          webhookMethod: 'PUT',
          webhookHeaders: { 'X-Team': 'ops' },
          webhookAuthHeaderName: 'X-Auth',
        },
      },
      'hook-secret',
      msg,
      10_000,
    );
    expect(result).toEqual({ success: true });
    const got = http.received.find((r) => r.path === '/hook')!;
    expect(got.method).toBe('PUT');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-team']).toBe('ops');
    expect(got.headers['x-auth']).toBe('hook-secret');
    expect(JSON.parse(got.body)).toEqual({
      eventType: 'test',
      severity: 'info',
      title: 'Test notification from nas',
      message: 'It works.',
      occurredAt: '2026-11-22T09:00:00.000Z',
      host: 'nas',
    });
  });

  it('reports a non-2xx answer as a short failure', async () => {
    const result = await send(
      { type: 'webhook', config: { webhookUrl: http.url('/status/500') } },
      null,
      msg,
      10_000,
    );
    expect(result).toEqual({ success: false, error: 'HTTP 500 from the endpoint' });
  });

  it('does not follow redirects', async () => {
    const before = http.received.length;
    const result = await send(
      { type: 'webhook', config: { webhookUrl: http.url('/redirect') } },
      null,
      msg,
      10_000,
    );
    expect(result.success).toBe(false);
    expect(!result.success && result.error).toContain('302');
    expect(http.received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });

  it('gives up after the timeout', async () => {
    const started = Date.now();
    const result = await send({ type: 'webhook', config: { webhookUrl: http.url('/hang') } }, null, msg, 300);
    expect(result).toEqual({ success: false, error: 'no answer within 0.3 s' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports a refused connection without naming the URL', async () => {
    const discordUrl = 'http://127.0.0.1:9/api/webhooks/123/very-secret-token';
    const result = await send({ type: 'discord', config: {} }, discordUrl, msg, 2_000);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result)).not.toContain('very-secret-token');
  });

  it('ntfy: POST <url>/<topic> with title, priority, tags and the bearer token', async () => {
    const result = await send(
      { type: 'ntfy', config: { ntfyUrl: http.url('/ntfy/'), ntfyTopic: 'nas-alerts' } },
      'tk_abc',
      { ...msg, severity: 'critical', title: 'Plein à 95 %' },
      10_000,
    );
    expect(result).toEqual({ success: true });
    const got = http.received.find((r) => r.path === '/ntfy/nas-alerts')!;
    expect(got.body).toBe('It works.');
    expect(got.headers['priority']).toBe('5');
    expect(got.headers['tags']).toBe('critical');
    expect(got.headers['authorization']).toBe('Bearer tk_abc');
    expect(got.headers['title']).toMatch(/^=\?UTF-8\?B\?/);
  });

  it('gotify: POST <url>/message with the app token', async () => {
    const result = await send(
      { type: 'gotify', config: { gotifyUrl: http.url('/gotify') } },
      'app-token',
      msg,
      10_000,
    );
    expect(result).toEqual({ success: true });
    const got = http.received.find((r) => r.path === '/gotify/message')!;
    expect(got.headers['x-gotify-key']).toBe('app-token');
    expect(JSON.parse(got.body)).toEqual({ title: msg.title, message: 'It works.', priority: 2 });
  });

  it('discord: POST to the webhook URL stored as the secret; refuses without one', async () => {
    expect(await send({ type: 'discord', config: {} }, http.url('/discord/1/tok'), msg, 10_000)).toEqual({
      success: true,
    });
    const got = http.received.find((r) => r.path === '/discord/1/tok')!;
    expect(JSON.parse(got.body)).toEqual({ content: '**Test notification from nas**\nIt works.' });
    const none = await send({ type: 'discord', config: {} }, null, msg, 10_000);
    expect(none.success).toBe(false);
  });

  it('email: delivers over SMTP with AUTH PLAIN when STARTTLS is off', async () => {
    const result = await send(
      {
        type: 'email',
        config: {
          emailHost: '127.0.0.1',
          emailPort: smtp.port,
          emailUsername: 'nas',
          emailFrom: 'nas@example.com',
          emailTo: ['me@example.com', 'you@example.com'],
          emailStartTls: false,
        },
      },
      'smtp-pass',
      { ...msg, severity: 'warning' },
      10_000,
    );
    expect(result).toEqual({ success: true });
    const mail = smtp.mails.at(-1)!;
    expect(mail.from).toBe('nas@example.com');
    expect(mail.to).toEqual(['me@example.com', 'you@example.com']);
    expect(mail.auth).toBe('\0nas\0smtp-pass');
    expect(mail.data).toContain('Subject: [warning] Test notification from nas');
    expect(mail.data).toContain('It works.');
  });

  it('email: refuses to send in clear when STARTTLS is required but not offered', async () => {
    const before = smtp.mails.length;
    const result = await send(
      {
        type: 'email',
        config: {
          emailHost: '127.0.0.1',
          emailPort: smtp.port,
          emailUsername: 'nas',
          emailFrom: 'nas@example.com',
          emailTo: ['me@example.com'],
          emailStartTls: true,
        },
      },
      'smtp-pass',
      msg,
      10_000,
    );
    expect(result.success).toBe(false);
    expect(JSON.stringify(result)).not.toContain('smtp-pass');
    expect(smtp.mails.length).toBe(before);
  });
});
