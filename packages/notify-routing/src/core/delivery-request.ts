/**
 * What a delivery sends, per channel type (08 §7.4), as plain data. The adapters in ../node only
 * perform the request; every decision about URL, headers and body is here.
 */
import type { Severity } from './catalog.ts';
import type { ChannelConfig } from './channel-config.ts';
import { cutText, type NotificationMessage } from './message.ts';

export interface HttpDelivery {
  kind: 'http';
  method: 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface EmailDelivery {
  kind: 'email';
  host: string;
  port: number;
  /** Implicit TLS (port 465). */
  secure: boolean;
  /** STARTTLS required (`emailStartTls: true`) or never attempted (`false`). */
  startTls: boolean;
  auth: { user: string; pass: string } | null;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

/** A channel that cannot deliver as configured (e.g. a Discord channel without its webhook URL). */
export interface UnusableDelivery {
  kind: 'unusable';
  reason: string;
}

export type DeliveryRequest = HttpDelivery | EmailDelivery | UnusableDelivery;

export const NTFY_PRIORITY: Record<Severity, number> = { info: 3, warning: 4, error: 4, critical: 5 };
export const GOTIFY_PRIORITY: Record<Severity, number> = { info: 2, warning: 5, error: 8, critical: 10 };
export const DISCORD_MAX_CONTENT = 2000;

const JSON_TYPE = 'application/json';

/** Join a base URL and a path segment with exactly one slash. */
export function joinUrl(base: string, segment: string): string {
  return `${base.replace(/\/+$/, '')}/${segment}`;
}

/**
 * A header-safe form of a text: line breaks become spaces; text outside printable ASCII is sent as an
 * RFC 2047 encoded word (ntfy decodes it).
 */
export function headerText(text: string): string {
  const flat = text.replace(/[\r\n\0]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

export function webhookPayload(msg: NotificationMessage): string {
  return JSON.stringify({
    eventType: msg.eventType,
    severity: msg.severity,
    title: msg.title,
    message: msg.message,
    occurredAt: msg.occurredAt,
    host: msg.host,
  });
}

export function renderDelivery(
  channel: ChannelConfig,
  secret: string | null,
  msg: NotificationMessage,
): DeliveryRequest {
  switch (channel.type) {
    case 'webhook': {
      const c = channel.config;
      const headers: Record<string, string> = { ...(c.webhookHeaders ?? {}), 'Content-Type': JSON_TYPE };
      if (c.webhookAuthHeaderName && secret !== null) headers[c.webhookAuthHeaderName] = secret;
      return {
        kind: 'http',
        method: c.webhookMethod ?? 'POST',
        url: c.webhookUrl,
        headers,
        body: webhookPayload(msg),
      };
    }
    case 'ntfy': {
      const c = channel.config;
      const headers: Record<string, string> = {
        'Content-Type': 'text/plain; charset=utf-8',
        Title: headerText(msg.title),
        Priority: String(NTFY_PRIORITY[msg.severity]),
        Tags: msg.severity,
      };
      if (secret !== null) headers['Authorization'] = `Bearer ${secret}`;
      return {
        kind: 'http',
        method: 'POST',
        url: joinUrl(c.ntfyUrl, c.ntfyTopic),
        headers,
        body: msg.message,
      };
    }
    case 'gotify': {
      const headers: Record<string, string> = { 'Content-Type': JSON_TYPE };
      if (secret !== null) headers['X-Gotify-Key'] = secret;
      const body = JSON.stringify({
        title: msg.title,
        message: msg.message,
        priority: GOTIFY_PRIORITY[msg.severity],
      });
      return {
        kind: 'http',
        method: 'POST',
        url: joinUrl(channel.config.gotifyUrl, 'message'),
        headers,
        body,
      };
    }
    case 'discord': {
      if (secret === null) {
        return { kind: 'unusable', reason: 'no Discord webhook URL is stored; set it as the channel secret' };
      }
      const content = cutText(`**${msg.title}**\n${msg.message}`, DISCORD_MAX_CONTENT);
      return {
        kind: 'http',
        method: 'POST',
        url: secret,
        headers: { 'Content-Type': JSON_TYPE },
        body: JSON.stringify({ content }),
      };
    }
    case 'email': {
      const c = channel.config;
      return {
        kind: 'email',
        host: c.emailHost,
        port: c.emailPort,
        secure: c.emailPort === 465,
        startTls: c.emailStartTls ?? true,
        auth:
          c.emailUsername !== undefined && secret !== null ? { user: c.emailUsername, pass: secret } : null,
        from: c.emailFrom,
        to: [...c.emailTo],
        subject: `[${msg.severity}] ${msg.title.replace(/[\r\n]+/g, ' ')}`,
        text: `${msg.message}\n\n--\nEvent: ${msg.eventType}\nSeverity: ${msg.severity}\nHost: ${msg.host}\nOccurred at: ${msg.occurredAt}\n`,
      };
    }
  }
}
