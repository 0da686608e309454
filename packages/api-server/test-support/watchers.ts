/**
 * What every watcher system test needs: a real webhook receiver and a real SMTP receiver, both
 * routed to the events under test through the API, and waits on what they received.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHttpReceiver, startSmtpReceiver } from '@appliance/notify-routing/test-support';
import { expect } from 'vitest';
import type { Sandbox } from './sandbox.ts';

export interface Delivered {
  eventType: string;
  title: string;
  message: string;
}

export interface Receivers {
  /** Every webhook delivery received, parsed. */
  webhooks(eventType?: string): Delivered[];
  /** Every mail received: subject and decoded body. */
  mails(eventType?: string): Array<{ subject: string; body: string }>;
  /** Waits until both receivers got `count` deliveries of the event (5 s at most), then returns them. */
  waitFor(
    eventType: string,
    count?: number,
  ): Promise<{ webhook: Delivered[]; mail: Array<{ subject: string; body: string }> }>;
  /** Routes more events to both channels. */
  route(events: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** Quoted-printable soft breaks and escapes, as nodemailer encodes long lines. */
function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parseMail(data: string): { subject: string; body: string } {
  const split = data.indexOf('\r\n\r\n');
  const head = data.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = data.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? '';
  const qp = /^Content-Transfer-Encoding: quoted-printable/im.test(head);
  const b64 = /^Content-Transfer-Encoding: base64/im.test(head);
  const decoded = qp
    ? decodeQuotedPrintable(body)
    : b64
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : body;
  return { subject: decodeSubject(subject), body: decoded.replace(/\r\n/g, '\n') };
}

/** `=?UTF-8?Q?…?=` encoded words of a subject. */
function decodeSubject(s: string): string {
  return s.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  );
}

export async function routedReceivers(s: Sandbox, events: readonly string[]): Promise<Receivers> {
  const http = await startHttpReceiver();
  const smtp = await startSmtpReceiver();
  const hook = await s.call('POST', '/notifications/channels', {
    name: 'watch-hook',
    type: 'webhook',
    webhookUrl: http.url('/watch'),
  });
  expect(hook.status, hook.text).toBe(201);
  const mail = await s.call('POST', '/notifications/channels', {
    name: 'watch-mail',
    type: 'email',
    emailHost: '127.0.0.1',
    emailPort: smtp.port,
    emailFrom: 'nas@example.com',
    emailTo: ['admin@example.com'],
    emailStartTls: false,
  });
  expect(mail.status, mail.text).toBe(201);
  const channelIds = [hook.body.id as string, mail.body.id as string];
  const route = async (list: readonly string[]) => {
    for (const eventType of list) {
      const r = await s.call('GET', `/notifications/routing/${eventType}`);
      const put = await s.call('PUT', `/notifications/routing/${eventType}`, {
        severity: r.body.severity,
        channelIds,
      });
      expect(put.status, put.text).toBe(200);
    }
  };
  await route(events);
  const webhooks = (eventType?: string) =>
    http.received
      .map((r) => JSON.parse(r.body) as Delivered)
      .filter((d) => eventType === undefined || d.eventType === eventType);
  const mails = (eventType?: string) =>
    smtp.mails
      .map((m) => parseMail(m.data))
      .filter((m) => eventType === undefined || m.body.includes(`Event: ${eventType}\n`));
  return {
    webhooks,
    mails,
    route,
    async waitFor(eventType, count = 1) {
      const end = Date.now() + 5000;
      while (Date.now() < end) {
        if (webhooks(eventType).length >= count && mails(eventType).length >= count) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const result = { webhook: webhooks(eventType), mail: mails(eventType) };
      expect(result.webhook.length, `webhook deliveries of ${eventType}`).toBe(count);
      expect(result.mail.length, `mails of ${eventType}`).toBe(count);
      return result;
    },
    async close() {
      await http.close();
      await smtp.close();
    },
  };
}

/** Alerts raised so far of one event type (every raise writes one, routed or not). */
export function alertsOf(s: Sandbox, eventType: string): Array<{ title: string; message: string }> {
  return s.server.ctx.sqlite
    .prepare('select title, message from notify_alerts where event_type = ? order by id')
    .all(eventType) as Array<{ title: string; message: string }>;
}

/**
 * A host root with the real sysfs, /dev, /proc and /run (the disks are real) but an account
 * database of its own: other suites running on this machine create and remove host accounts (an
 * `admin` among them), which must not make this sandbox's admin name unavailable.
 */
export function labHostRoot(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'watchers-hostroot-'));
  for (const d of ['sys', 'dev', 'proc', 'run']) fs.symlinkSync(`/${d}`, path.join(dir, d));
  fs.mkdirSync(path.join(dir, 'etc'));
  fs.writeFileSync(path.join(dir, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  fs.writeFileSync(path.join(dir, 'etc/group'), 'root:x:0:\n');
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
