import { describe, expect, it } from 'vitest';
import { headerText, joinUrl, renderDelivery } from './delivery-request.ts';
import type { NotificationMessage } from './message.ts';
import { cutText, testMessage } from './message.ts';

const msg: NotificationMessage = {
  eventType: 'disk_offline',
  severity: 'critical',
  title: 'Disk 2 is offline',
  message: '/mnt/disk2 lost its mount.',
  occurredAt: '2026-11-22T09:00:00.000Z',
  host: 'nas',
};

describe('renderDelivery (08 §7.4)', () => {
  it('webhook: method, JSON payload, extra headers and the auth header from the secret', () => {
    const r = renderDelivery(
      {
        type: 'webhook',
        config: {
          webhookUrl: 'https://h.example.com/in',
          webhookMethod: 'PUT',
          webhookHeaders: { 'X-Team': 'ops' },
          webhookAuthHeaderName: 'X-Auth',
        },
      },
      'tok',
      msg,
    );
    expect(r).toEqual({
      kind: 'http',
      method: 'PUT',
      url: 'https://h.example.com/in',
      headers: { 'X-Team': 'ops', 'Content-Type': 'application/json', 'X-Auth': 'tok' },
      body: JSON.stringify({
        eventType: 'disk_offline',
        severity: 'critical',
        title: 'Disk 2 is offline',
        message: '/mnt/disk2 lost its mount.',
        occurredAt: '2026-11-22T09:00:00.000Z',
        host: 'nas',
      }),
    });
  });

  it('webhook: no auth header without both the name and the secret; POST by default', () => {
    const noSecret = renderDelivery(
      { type: 'webhook', config: { webhookUrl: 'http://h/', webhookAuthHeaderName: 'X-Auth' } },
      null,
      msg,
    );
    expect(noSecret.kind === 'http' && noSecret.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(noSecret.kind === 'http' && noSecret.method).toBe('POST');
    const noName = renderDelivery({ type: 'webhook', config: { webhookUrl: 'http://h/' } }, 'tok', msg);
    expect(JSON.stringify(noName)).not.toContain('tok');
  });

  it('ntfy: POST <url>/<topic>, title, priority and tags headers, bearer token', () => {
    const r = renderDelivery(
      { type: 'ntfy', config: { ntfyUrl: 'https://ntfy.sh/', ntfyTopic: 'nas' } },
      'tk_1',
      msg,
    );
    expect(r).toMatchObject({
      kind: 'http',
      method: 'POST',
      url: 'https://ntfy.sh/nas',
      body: '/mnt/disk2 lost its mount.',
      headers: { Title: 'Disk 2 is offline', Priority: '5', Tags: 'critical', Authorization: 'Bearer tk_1' },
    });
    const info = renderDelivery({ type: 'ntfy', config: { ntfyUrl: 'http://n', ntfyTopic: 't' } }, null, {
      ...msg,
      severity: 'error',
    });
    expect(info.kind === 'http' && info.headers['Priority']).toBe('4');
    expect(info.kind === 'http' && 'Authorization' in info.headers).toBe(false);
  });

  it('gotify: POST <url>/message with the priority mapping and X-Gotify-Key', () => {
    const r = renderDelivery({ type: 'gotify', config: { gotifyUrl: 'http://g.lan/' } }, 'app', {
      ...msg,
      severity: 'warning',
    });
    expect(r).toEqual({
      kind: 'http',
      method: 'POST',
      url: 'http://g.lan/message',
      headers: { 'Content-Type': 'application/json', 'X-Gotify-Key': 'app' },
      body: JSON.stringify({
        title: 'Disk 2 is offline',
        message: '/mnt/disk2 lost its mount.',
        priority: 5,
      }),
    });
  });

  it('discord: POST to the secret URL, content cut to 2,000 characters; unusable without a URL', () => {
    const r = renderDelivery({ type: 'discord', config: {} }, 'https://discord.com/api/webhooks/1/x', {
      ...msg,
      message: 'é'.repeat(3000),
    });
    expect(r.kind === 'http' && r.url).toBe('https://discord.com/api/webhooks/1/x');
    const content = r.kind === 'http' ? (JSON.parse(r.body) as { content: string }).content : '';
    expect(Array.from(content)).toHaveLength(2000);
    expect(content.startsWith('**Disk 2 is offline**\n')).toBe(true);
    expect(renderDelivery({ type: 'discord', config: {} }, null, msg)).toMatchObject({ kind: 'unusable' });
  });

  it('email: subject with the severity, STARTTLS flag, auth only with a user name and a password', () => {
    const config = {
      emailHost: 'smtp.example.com',
      emailPort: 587,
      emailFrom: 'nas@example.com',
      emailTo: ['me@example.com'],
      emailStartTls: true,
      emailUsername: 'nas',
    };
    const r = renderDelivery({ type: 'email', config }, 'pw', msg);
    expect(r).toMatchObject({
      kind: 'email',
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      startTls: true,
      auth: { user: 'nas', pass: 'pw' },
      subject: '[critical] Disk 2 is offline',
      to: ['me@example.com'],
    });
    expect(r.kind === 'email' && r.text).toContain('/mnt/disk2 lost its mount.');
    expect(renderDelivery({ type: 'email', config }, null, msg)).toMatchObject({ auth: null });
    expect(renderDelivery({ type: 'email', config: { ...config, emailPort: 465 } }, null, msg)).toMatchObject(
      {
        secure: true,
      },
    );
  });
});

describe('helpers', () => {
  it('joins URLs with one slash and makes header text safe', () => {
    expect(joinUrl('http://a/b///', 'c')).toBe('http://a/b/c');
    expect(headerText('a\r\nb')).toBe('a b');
    expect(headerText('Disque plein é')).toBe(
      `=?UTF-8?B?${Buffer.from('Disque plein é').toString('base64')}?=`,
    );
  });

  it('cuts by code points and builds the test message', () => {
    expect(cutText('😀😀😀', 2)).toBe('😀😀');
    const t = testMessage('Hook', 'nas', '2026-11-22T09:00:00.000Z');
    expect(t).toMatchObject({ eventType: 'test', severity: 'info', host: 'nas' });
    expect(t.message).toContain('"Hook"');
  });
});
