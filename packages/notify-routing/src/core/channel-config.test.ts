import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ChannelBodySchema, isHttpUrl, parseStoredConfig, splitChannelBody } from './channel-config.ts';
import { toValidationIssues } from './issues.ts';

const paths = (body: unknown): string[] => {
  const result = v.safeParse(ChannelBodySchema, body);
  return result.success ? [] : toValidationIssues(result.issues).map((i) => i.path);
};

const webhook = { name: 'Hook', type: 'webhook', webhookUrl: 'https://hooks.example.com/in' };
const email = {
  name: 'Mail',
  type: 'email',
  emailHost: 'smtp.example.com',
  emailPort: 587,
  emailFrom: 'nas@example.com',
  emailTo: ['me@example.com'],
};

describe('channel configuration (08 §7.1)', () => {
  it('accepts a minimal channel of every type and fills the documented defaults', () => {
    const bodies = [
      webhook,
      { name: 'n', type: 'ntfy', ntfyUrl: 'https://ntfy.sh', ntfyTopic: 'nas_alerts-1' },
      { name: 'g', type: 'gotify', gotifyUrl: 'http://gotify.lan:8080' },
      { name: 'd', type: 'discord', secret: 'https://discord.com/api/webhooks/1/abc' },
      email,
    ];
    for (const body of bodies) expect(paths(body)).toEqual([]);
    const parsed = v.parse(ChannelBodySchema, webhook);
    expect(splitChannelBody(parsed)).toEqual({
      name: 'Hook',
      enabled: true,
      secret: undefined,
      channel: {
        type: 'webhook',
        config: { webhookUrl: 'https://hooks.example.com/in', webhookMethod: 'POST' },
      },
    });
    expect(splitChannelBody(v.parse(ChannelBodySchema, email)).channel.config).toMatchObject({
      emailStartTls: true,
    });
  });

  it('trims the name and refuses an empty or over-long one', () => {
    expect(splitChannelBody(v.parse(ChannelBodySchema, { ...webhook, name: '  Hook  ' })).name).toBe('Hook');
    expect(paths({ ...webhook, name: '   ' })).toEqual(['name']);
    expect(paths({ ...webhook, name: 'x'.repeat(129) })).toEqual(['name']);
    expect(paths({ ...webhook, name: 7 })).toEqual(['name']);
  });

  it('refuses an unknown type, unknown fields and fields of another type', () => {
    expect(paths({ name: 'x', type: 'sms' })).toEqual(['type']);
    expect(paths({ ...webhook, ntfyTopic: 'x' })).toEqual(['ntfyTopic']);
    expect(paths({ ...webhook, colour: 'red' })).toEqual(['colour']);
    expect(paths({ ...webhook, webhookUrl: undefined })).toEqual(['webhookUrl']);
  });

  it('validates URLs: http(s) only, ≤ 2,048 characters, no user-info', () => {
    expect(isHttpUrl('http://127.0.0.1:8080/x')).toBe(true);
    expect(isHttpUrl('ftp://example.com/')).toBe(false);
    expect(isHttpUrl('javascript:alert(1)')).toBe(false);
    expect(isHttpUrl('https://user:pw@example.com/')).toBe(false);
    expect(isHttpUrl('not a url')).toBe(false);
    expect(isHttpUrl(`https://example.com/${'a'.repeat(2048)}`)).toBe(false);
    expect(paths({ ...webhook, webhookUrl: 'file:///etc/passwd' })).toEqual(['webhookUrl']);
    expect(paths({ name: 'd', type: 'discord', secret: 'discord-webhook' })).toEqual(['secret']);
  });

  it('validates header names and values and their count', () => {
    expect(paths({ ...webhook, webhookHeaders: { 'X-Token': 'abc', 'X-Other': '' } })).toEqual([]);
    expect(paths({ ...webhook, webhookHeaders: { 'Bad Name': 'v' } })).toEqual(['webhookHeaders.Bad Name']);
    expect(paths({ ...webhook, webhookHeaders: { 'X-A': 'line\r\nX-Injected: 1' } })).toEqual([
      'webhookHeaders.X-A',
    ]);
    expect(paths({ ...webhook, webhookHeaders: { 'X-A': 'v'.repeat(1025) } })).toEqual([
      'webhookHeaders.X-A',
    ]);
    expect(paths({ ...webhook, webhookHeaders: { Host: 'evil' } })).toEqual(['webhookHeaders.Host']);
    expect(paths({ ...webhook, webhookHeaders: { 'x-a': 1 } })).toEqual(['webhookHeaders.x-a']);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expect(paths({ ...webhook, webhookHeaders: many })).toEqual(['webhookHeaders']);
    expect(paths({ ...webhook, webhookAuthHeaderName: 'Authorization', secret: 'Bearer x' })).toEqual([]);
    expect(paths({ ...webhook, webhookAuthHeaderName: 'Auth:x' })).toEqual(['webhookAuthHeaderName']);
    expect(paths({ ...webhook, secret: 'a\nb' })).toEqual(['secret']);
    expect(paths({ ...webhook, secret: '' })).toEqual(['secret']);
    expect(paths({ ...webhook, secret: null })).toEqual([]);
    expect(paths({ ...webhook, webhookMethod: 'GET' })).toEqual(['webhookMethod']);
  });

  it('validates the ntfy topic', () => {
    const ntfy = { name: 'n', type: 'ntfy', ntfyUrl: 'https://ntfy.sh' };
    expect(paths({ ...ntfy, ntfyTopic: 'a'.repeat(64) })).toEqual([]);
    expect(paths({ ...ntfy, ntfyTopic: 'a'.repeat(65) })).toEqual(['ntfyTopic']);
    expect(paths({ ...ntfy, ntfyTopic: 'a/b' })).toEqual(['ntfyTopic']);
    expect(paths({ ...ntfy, ntfyTopic: '' })).toEqual(['ntfyTopic']);
    expect(paths(ntfy)).toEqual(['ntfyTopic']);
  });

  it('validates the e-mail fields', () => {
    expect(
      paths({ ...email, emailHost: '192.168.1.10', emailUsername: 'nas', emailStartTls: false }),
    ).toEqual([]);
    expect(paths({ ...email, emailHost: 'smtp server' })).toEqual(['emailHost']);
    expect(paths({ ...email, emailPort: 0 })).toEqual(['emailPort']);
    expect(paths({ ...email, emailPort: 65536 })).toEqual(['emailPort']);
    expect(paths({ ...email, emailPort: 25.5 })).toEqual(['emailPort']);
    expect(paths({ ...email, emailPort: '25' })).toEqual(['emailPort']);
    expect(paths({ ...email, emailFrom: 'not-an-address' })).toEqual(['emailFrom']);
    expect(paths({ ...email, emailTo: [] })).toEqual(['emailTo']);
    expect(paths({ ...email, emailTo: ['a@example.com', 'bad'] })).toEqual(['emailTo.1']);
    expect(paths({ ...email, emailTo: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) })).toEqual([
      'emailTo',
    ]);
  });
});

describe('parseStoredConfig', () => {
  it('reads back a stored configuration and refuses a damaged one', () => {
    expect(parseStoredConfig('gotify', { gotifyUrl: 'http://g.lan' })).toEqual({
      type: 'gotify',
      config: { gotifyUrl: 'http://g.lan' },
    });
    expect(() => parseStoredConfig('gotify', { gotifyUrl: 'ftp://g.lan' })).toThrow(/invalid/);
    expect(() => parseStoredConfig('ntfy', null)).toThrow(/invalid/);
  });
});
