import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../services/events.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

/** A local HTTP receiver on 127.0.0.1: `/status/<code>` answers that code, anything else 200. */
async function startReceiver() {
  const received: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }> =
    [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const code = /^\/status\/(\d{3})/.exec(path);
      res.writeHead(code ? Number(code[1]) : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const RANDOM_ID = '3f0c5e1a-9d1b-4c55-8a0e-2b7f3c1d9e00';

describe('notifications through the real server (04 §8, 08 §16 items 10–11)', () => {
  let s: Sandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let viewerToken: string;
  let c1: string;
  let c2: string;

  const createWebhook = async (name: string, extra: Record<string, unknown> = {}) => {
    const r = await s.call('POST', '/notifications/channels', {
      name,
      type: 'webhook',
      enabled: true,
      webhookUrl: receiver.url(`/hooks/${encodeURIComponent(name)}`),
      ...extra,
    });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const rows = (sql: string, ...args: unknown[]) => s.server.ctx.sqlite.prepare(sql).all(...args);

  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startSandbox();
    const viewer = await s.call('POST', '/users', {
      username: 'vera',
      role: 'viewer',
      password: 'viewer password',
    });
    expect(viewer.status).toBe(201);
    const basic = Buffer.from('vera:viewer password').toString('base64');
    const tok = await s.call(
      'POST',
      '/tokens',
      { name: 'v', role: 'viewer' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    expect(tok.status).toBe(201);
    viewerToken = tok.body.token;
  });
  afterAll(async () => {
    await s?.close();
    await receiver?.close();
  });

  it('answers 409 setup_required before an admin exists', async () => {
    const fresh = await startSandbox({ admin: false });
    try {
      const r = await fresh.call('GET', '/notifications/routing', undefined, { token: null });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('setup_required');
      expect(
        (
          await fresh.call(
            'PUT',
            '/notifications/routing/disk_offline',
            { severity: 'info', channelIds: [] },
            { via: 'unix' },
          )
        ).status,
      ).toBe(409);
    } finally {
      await fresh.close();
    }
  });

  it('1: a fresh install lists 29 unrouted default entries in catalog order', async () => {
    const r = await s.call('GET', '/notifications/routing', undefined, { token: viewerToken });
    expect(r.status).toBe(200);
    expect(r.body.routing).toHaveLength(29);
    expect(r.body.routing[0].eventType).toBe('smart_warning');
    expect(r.body.routing[28].eventType).toBe('catalog_check_failed');
    expect(
      r.body.routing.every(
        (e: { channelIds: unknown[]; isDefaultSeverity: boolean }) =>
          e.channelIds.length === 0 && e.isDefaultSeverity,
      ),
    ).toBe(true);
    const byType = Object.fromEntries(
      r.body.routing.map((e: { eventType: string; severity: string }) => [e.eventType, e.severity]),
    );
    expect(byType['catalog_check_failed']).toBe('warning');
    expect(byType['sync_succeeded']).toBe('info');
    expect(rows('select * from notify_event_severity')).toEqual([]);
    expect(rows('select * from notify_routes')).toEqual([]);
    const types = await s.call('GET', '/notifications/event-types', undefined, { token: viewerToken });
    expect(types.body.eventTypes.map((e: { eventType: string }) => e.eventType)).toEqual(
      r.body.routing.map((e: { eventType: string }) => e.eventType),
    );
  });

  it('2–4: default severity stores no override, another stores one, PUT is a full replace', async () => {
    c1 = await createWebhook('c1');
    c2 = await createWebhook('c2');
    let r = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'critical',
      channelIds: [c1],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      eventType: 'disk_offline',
      severity: 'critical',
      channelIds: [c1],
      isDefaultSeverity: true,
    });
    expect(rows('select * from notify_event_severity')).toEqual([]);

    r = await s.call('PUT', '/notifications/routing/disk_offline', { severity: 'warning', channelIds: [c1] });
    expect(r.body.isDefaultSeverity).toBe(false);
    expect(rows('select * from notify_event_severity')).toEqual([
      { event_type: 'disk_offline', severity: 'warning' },
    ]);

    r = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'critical',
      channelIds: [c1],
    });
    expect(r.body.isDefaultSeverity).toBe(true);
    expect(rows('select * from notify_event_severity')).toEqual([]);

    r = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'critical',
      channelIds: [c2.toUpperCase(), c1],
    });
    expect(r.body.channelIds).toEqual([c1, c2].sort());
    r = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'critical',
      channelIds: [c2],
    });
    expect(r.body.channelIds).toEqual([c2]);
    const got = await s.call('GET', '/notifications/routing/disk_offline', undefined, { token: viewerToken });
    expect(got.body).toEqual(r.body);
    expect(rows("select channel_id from notify_routes where event_type = 'disk_offline'")).toEqual([
      { channel_id: c2 },
    ]);

    const audit = rows(
      "select actor, target, outcome, details from audit_log where operation = 'notification_routing.update' order by id desc limit 1",
    );
    expect(audit).toEqual([
      {
        actor: 'admin',
        target: 'disk_offline',
        outcome: 'ok',
        details: JSON.stringify({ severity: 'critical', channelIds: [c2] }),
      },
    ]);
  });

  it('5: an opt-in event is routed, then switched off with [] leaving no rows', async () => {
    let r = await s.call('PUT', '/notifications/routing/sync_succeeded', {
      severity: 'info',
      channelIds: [c1],
    });
    expect(r.body.channelIds).toEqual([c1]);
    r = await s.call('PUT', '/notifications/routing/sync_succeeded', { severity: 'info', channelIds: [] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      eventType: 'sync_succeeded',
      severity: 'info',
      channelIds: [],
      isDefaultSeverity: true,
    });
    expect(rows("select * from notify_routes where event_type = 'sync_succeeded'")).toEqual([]);
    expect(rows("select * from notify_event_severity where event_type = 'sync_succeeded'")).toEqual([]);
  });

  it('6–8: refused requests answer 4xx with a stable code and change nothing', async () => {
    const before = s.dumpDatabase();
    const unknown = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'warning',
      channelIds: [c1, RANDOM_ID],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('notification_unknown_channel');
    expect(unknown.body.details).toEqual({ unknownChannelIds: [RANDOM_ID] });

    const dup = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'warning',
      channelIds: [c1, c1],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.details.issues).toEqual([{ path: 'channelIds.1', message: 'duplicate channel id' }]);
    const dupCase = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'warning',
      channelIds: [c1, c1.toUpperCase()],
    });
    expect(dupCase.status).toBe(400);
    expect(dupCase.body.code).toBe('bad_request');

    const badType = await s.call('PUT', '/notifications/routing/not_an_event', {
      severity: 'warning',
      channelIds: [],
    });
    expect(badType.status).toBe(400);
    expect(badType.body.details.issues[0].path).toBe('eventType');
    expect((await s.call('GET', '/notifications/routing/not_an_event')).status).toBe(400);
    expect(
      (await s.call('PUT', '/notifications/routing/not_an_event', { severity: 'x' }, { token: null })).status,
    ).toBe(401);
    const viewer = await s.call(
      'PUT',
      '/notifications/routing/disk_offline',
      { severity: 'warning', channelIds: [] },
      { token: viewerToken },
    );
    expect(viewer.status).toBe(403);
    expect(viewer.body.code).toBe('forbidden');

    const bad: Array<[unknown, string]> = [
      [{ severity: 'fatal', channelIds: [] }, 'severity'],
      [{ severity: 'info', channelIds: ['not-a-uuid'] }, 'channelIds.0'],
      [{ severity: 'info', channelIds: [c1], extra: true }, 'extra'],
      [{ severity: 'info' }, 'channelIds'],
      [{ severity: 'info', channelIds: 'c1' }, 'channelIds'],
      [{ severity: 3, channelIds: [] }, 'severity'],
      [{ severity: 'info', channelIds: Array.from({ length: 101 }, () => c1) }, 'channelIds'],
      [{ severity: 'info', channelIds: Array.from({ length: 10_000 }, () => 'x') }, 'channelIds.0'],
      [['info'], ''],
      [null, ''],
    ];
    for (const [body, path] of bad) {
      const r = await s.call('PUT', '/notifications/routing/disk_offline', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect(r.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(r.body.details.issues.length).toBeLessThanOrEqual(20);
    }
    const notJson = await s.call('PUT', '/notifications/routing/disk_offline', undefined, {
      raw: '{"severity":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const huge = await s.call('PUT', '/notifications/routing/disk_offline', {
      severity: 'info',
      channelIds: [],
      pad: 'x'.repeat(70_000),
    });
    expect(huge.status).toBe(413);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('9: deleting a routed channel removes it from every entry', async () => {
    const c3 = await createWebhook('c3');
    await s.call('PUT', '/notifications/routing/smart_warning', { severity: 'error', channelIds: [c3, c1] });
    expect((await s.call('DELETE', `/notifications/channels/${c3}`)).status).toBe(204);
    const r = await s.call('GET', '/notifications/routing');
    expect(JSON.stringify(r.body)).not.toContain(c3);
    expect(r.body.routing.find((e: { eventType: string }) => e.eventType === 'smart_warning')).toEqual({
      eventType: 'smart_warning',
      severity: 'error',
      channelIds: [c1],
      isDefaultSeverity: false,
    });
    expect((await s.call('GET', `/notifications/channels/${c3}`)).status).toBe(404);
    expect((await s.call('DELETE', `/notifications/channels/${c3}`)).body.code).toBe(
      'notification_channel_not_found',
    );
  });

  it('10: a disabled channel can be routed; a raised event queues nothing for it but is an alert and an SSE push', async () => {
    const off = await createWebhook('off', { enabled: false });
    const r = await s.call('PUT', '/notifications/routing/ups_on_battery', {
      severity: 'critical',
      channelIds: [off],
    });
    expect(r.status).toBe(200);
    const pushed: ServerEvent[] = [];
    const unsubscribe = s.server.ctx.events.subscribe((e) => pushed.push(e));
    await s.server.ctx.hooks.raise!({
      eventType: 'ups_on_battery',
      title: 'On battery',
      message: 'Mains power lost.',
    });
    unsubscribe();
    expect(rows('select * from notify_deliveries where channel_id = ?', off)).toEqual([]);
    const alerts = await s.call('GET', '/notifications/alerts?limit=1', undefined, { token: viewerToken });
    expect(alerts.status).toBe(200);
    expect(alerts.body.alerts[0]).toMatchObject({
      eventType: 'ups_on_battery',
      severity: 'critical',
      title: 'On battery',
      message: 'Mains power lost.',
    });
    expect(pushed).toEqual([
      { type: 'notification', id: alerts.body.alerts[0].id, data: alerts.body.alerts[0] },
    ]);
  });

  it('delivers a raised event to an enabled routed channel, and queues a retry after a failure', async () => {
    const good = await createWebhook('deliver-ok');
    const failing = await s.call('POST', '/notifications/channels', {
      name: 'deliver-500',
      type: 'webhook',
      webhookUrl: receiver.url('/status/500'),
    });
    await s.call('PUT', '/notifications/routing/array_degraded', {
      severity: 'critical',
      channelIds: [good, failing.body.id],
    });
    await s.server.ctx.hooks.raise!({
      eventType: 'array_degraded',
      title: 'Degraded',
      message: 'Parity disk missing.',
    });
    const deadline = Date.now() + 10_000;
    type Row = {
      channel_id: string;
      status: string;
      attempts: number;
      next_attempt_at: string | null;
      last_error: string | null;
    };
    let deliveries: Row[] = [];
    while (Date.now() < deadline) {
      deliveries = rows(
        'select channel_id, status, attempts, next_attempt_at, last_error from notify_deliveries',
      ) as Row[];
      if (deliveries.length === 2 && deliveries.every((d) => d.attempts === 1)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const ok = deliveries.find((d) => d.channel_id === good)!;
    const bad = deliveries.find((d) => d.channel_id === failing.body.id)!;
    expect(ok).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(bad).toMatchObject({ status: 'pending', attempts: 1, last_error: 'HTTP 500 from the endpoint' });
    const [alert] = rows(
      "select occurred_at from notify_alerts where event_type = 'array_degraded'",
    ) as Array<{ occurred_at: string }>;
    const wait = Date.parse(bad.next_attempt_at!) - Date.parse(alert!.occurred_at);
    expect(wait).toBeGreaterThanOrEqual(30_000);
    expect(wait).toBeLessThan(40_000);
    const hit = receiver.received.find((x) => x.path === '/hooks/deliver-ok')!;
    expect(JSON.parse(hit.body)).toMatchObject({
      eventType: 'array_degraded',
      severity: 'critical',
      title: 'Degraded',
      host: expect.any(String),
    });
  });

  it('08 §16 item 10: the test send really delivers; a receiver answering 500 gives success:false', async () => {
    const r = await s.call('POST', `/notifications/channels/${c1}/test`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    const hit = receiver.received.filter((x) => x.path === '/hooks/c1').at(-1)!;
    expect(hit.headers['content-type']).toBe('application/json');
    expect(JSON.parse(hit.body)).toMatchObject({ eventType: 'test', severity: 'info' });

    const failing = await s.call('POST', '/notifications/channels', {
      name: 'fails',
      type: 'webhook',
      webhookUrl: receiver.url('/status/500'),
    });
    const f = await s.call('POST', `/notifications/channels/${failing.body.id}/test`);
    expect(f.status).toBe(200);
    expect(f.body).toEqual({ success: false, error: 'HTTP 500 from the endpoint' });
    expect(
      rows(
        "select outcome from audit_log where operation = 'notification_channel.test' order by id desc limit 1",
      ),
    ).toEqual([{ outcome: 'failed' }]);
    expect(
      (await s.call('POST', `/notifications/channels/${c1}/test`, undefined, { token: viewerToken })).status,
    ).toBe(403);
    expect((await s.call('POST', `/notifications/channels/${RANDOM_ID}/test`)).status).toBe(404);
  });

  it('test sends of ntfy, gotify and discord channels reach the local receiver; e-mail failures are reported', async () => {
    const make = async (body: Record<string, unknown>) => {
      const r = await s.call('POST', '/notifications/channels', body);
      expect(r.status, r.text).toBe(201);
      const t = await s.call('POST', `/notifications/channels/${r.body.id}/test`);
      expect(t.status).toBe(200);
      return t.body;
    };
    expect(
      await make({
        name: 'ntfy',
        type: 'ntfy',
        ntfyUrl: receiver.url('/ntfy'),
        ntfyTopic: 'nas',
        secret: 'tk_1',
      }),
    ).toEqual({ success: true });
    const ntfy = receiver.received.find((x) => x.path === '/ntfy/nas')!;
    expect(ntfy.headers).toMatchObject({ priority: '3', tags: 'info', authorization: 'Bearer tk_1' });
    expect(
      await make({ name: 'gotify', type: 'gotify', gotifyUrl: receiver.url('/gotify'), secret: 'app' }),
    ).toEqual({ success: true });
    expect(JSON.parse(receiver.received.find((x) => x.path === '/gotify/message')!.body)).toMatchObject({
      priority: 2,
    });
    expect(await make({ name: 'discord', type: 'discord', secret: receiver.url('/discord/1/tok') })).toEqual({
      success: true,
    });
    expect(JSON.parse(receiver.received.find((x) => x.path === '/discord/1/tok')!.body).content).toContain(
      'Test notification',
    );
    expect(await make({ name: 'discord-empty', type: 'discord' })).toMatchObject({ success: false });
    const mail = await make({
      name: 'mail',
      type: 'email',
      emailHost: '127.0.0.1',
      emailPort: 9,
      emailFrom: 'nas@example.com',
      emailTo: ['me@example.com'],
      emailStartTls: false,
    });
    expect(mail.success).toBe(false);
    expect(mail.error).toMatch(/^SMTP: /);
  });

  it('08 §16 item 11: the secret is write-only, sealed at rest, kept, replaced and cleared', async () => {
    const secret = 'very-secret-header-value';
    const created = await s.call('POST', '/notifications/channels', {
      name: 'Secretive',
      type: 'webhook',
      webhookUrl: receiver.url('/hooks/secretive'),
      webhookAuthHeaderName: 'X-Auth',
      secret,
    });
    expect(created.status).toBe(201);
    expect(created.body.hasSecret).toBe(true);
    expect(created.text).not.toContain(secret);
    const id = created.body.id as string;
    expect(s.dumpDatabase()).not.toContain(secret);
    expect(s.dumpDatabase()).not.toContain(Buffer.from(secret).toString('hex'));

    const body = {
      name: 'Secretive',
      type: 'webhook',
      webhookUrl: receiver.url('/hooks/secretive'),
      webhookAuthHeaderName: 'X-Auth',
    };
    const kept = await s.call('PUT', `/notifications/channels/${id}`, body);
    expect(kept.status).toBe(200);
    expect(kept.body.hasSecret).toBe(true);
    await s.call('POST', `/notifications/channels/${id}/test`);
    expect(receiver.received.filter((x) => x.path === '/hooks/secretive').at(-1)!.headers['x-auth']).toBe(
      secret,
    );

    const viewerGet = await s.call('GET', `/notifications/channels/${id}`, undefined, { token: viewerToken });
    expect(viewerGet.status).toBe(200);
    expect(Object.keys(viewerGet.body).sort()).toEqual([
      'createdAt',
      'enabled',
      'hasSecret',
      'id',
      'name',
      'type',
      'updatedAt',
    ]);
    const viewerList = await s.call('GET', '/notifications/channels', undefined, { token: viewerToken });
    expect(viewerList.text).not.toContain('webhookUrl');
    const adminGet = await s.call('GET', `/notifications/channels/${id}`);
    expect(adminGet.body.webhookUrl).toBe(receiver.url('/hooks/secretive'));

    const cleared = await s.call('PUT', `/notifications/channels/${id}`, { ...body, secret: null });
    expect(cleared.body.hasSecret).toBe(false);
    const all = [
      created,
      kept,
      viewerGet,
      adminGet,
      cleared,
      await s.call('GET', '/notifications/channels'),
      await s.call('GET', '/audit'),
    ];
    for (const r of all) expect(r.text).not.toContain(secret);
    expect(s.logs.join('\n')).not.toContain(secret);
  });

  it('channel CRUD: names unique ignoring case, type immutable, validation refuses and writes nothing', async () => {
    const before = s.dumpDatabase();
    const dupName = await s.call('POST', '/notifications/channels', {
      name: 'C1',
      type: 'webhook',
      webhookUrl: receiver.url('/x'),
    });
    expect(dupName.status).toBe(409);
    expect(dupName.body.code).toBe('notification_channel_exists');
    const invalid: unknown[] = [
      { name: 'x', type: 'sms' },
      { name: 'x', type: 'webhook', webhookUrl: 'ftp://example.com' },
      { name: 'x', type: 'webhook', webhookUrl: 'https://u:p@example.com' },
      { name: 'x', type: 'webhook', webhookUrl: 'https://example.com', webhookHeaders: { 'X-A': 'a\r\nb' } },
      { name: 'x', type: 'ntfy', ntfyUrl: 'https://ntfy.sh', ntfyTopic: 'a/b' },
      {
        name: 'x',
        type: 'email',
        emailHost: 'smtp.example.com',
        emailPort: 70000,
        emailFrom: 'a@b.co',
        emailTo: ['c@d.co'],
      },
      { name: '', type: 'gotify', gotifyUrl: 'https://g.example.com' },
      { name: 'x', type: 'gotify', gotifyUrl: 'https://g.example.com', surprise: 1 },
    ];
    for (const b of invalid) {
      const r = await s.call('POST', '/notifications/channels', b);
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(r.body.code).toBe('bad_request');
    }
    const typeChange = await s.call('PUT', `/notifications/channels/${c1}`, {
      name: 'c1',
      type: 'gotify',
      gotifyUrl: 'https://g.example.com',
    });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.details.issues[0].path).toBe('type');
    const rename = await s.call('PUT', `/notifications/channels/${c1}`, {
      name: 'C2',
      type: 'webhook',
      webhookUrl: receiver.url('/x'),
    });
    expect(rename.status).toBe(409);
    expect((await s.call('GET', '/notifications/channels/not-a-uuid')).status).toBe(400);
    expect(
      (await s.call('PUT', `/notifications/channels/${RANDOM_ID}`, { name: 'z', type: 'discord' })).status,
    ).toBe(404);
    expect(s.dumpDatabase()).toBe(before);

    const list = await s.call('GET', '/notifications/channels');
    const names = list.body.channels.map((c: { name: string }) => c.name);
    expect(names).toEqual(
      [...names].sort((a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
    );
  });

  it('alerts page newest first with nextBefore; bad paging answers 400', async () => {
    for (const n of [1, 2, 3]) {
      await s.server.ctx.hooks.raise!({ eventType: 'sync_succeeded', title: `Sync ${n}`, message: 'done' });
    }
    const first = await s.call('GET', '/notifications/alerts?limit=2', undefined, { token: viewerToken });
    expect(first.body.alerts.map((a: { title: string }) => a.title)).toEqual(['Sync 3', 'Sync 2']);
    expect(first.body.nextBefore).toBe(first.body.alerts[1].id);
    const next = await s.call(
      'GET',
      `/notifications/alerts?limit=1&before=${first.body.nextBefore}`,
      undefined,
      { token: viewerToken },
    );
    expect(next.body.alerts[0].title).toBe('Sync 1');
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'before=x', 'colour=red']) {
      const r = await s.call('GET', `/notifications/alerts?${q}`, undefined, { token: viewerToken });
      expect(r.status, q).toBe(400);
    }
  });

  it('deleting a channel deletes its queued deliveries in the same transaction', async () => {
    const failing = await s.call('POST', '/notifications/channels', {
      name: 'queue-500',
      type: 'webhook',
      webhookUrl: receiver.url('/status/500'),
    });
    await s.call('PUT', '/notifications/routing/sync_failed', {
      severity: 'error',
      channelIds: [failing.body.id],
    });
    await s.server.ctx.hooks.raise!({
      eventType: 'sync_failed',
      title: 'Sync failed',
      message: 'disk2 read error',
    });
    expect(rows('select count(*) as n from notify_deliveries where channel_id = ?', failing.body.id)).toEqual(
      [{ n: 1 }],
    );
    expect((await s.call('DELETE', `/notifications/channels/${failing.body.id}`)).status).toBe(204);
    expect(rows('select count(*) as n from notify_deliveries where channel_id = ?', failing.body.id)).toEqual(
      [{ n: 0 }],
    );
    expect(rows('select count(*) as n from notify_routes where channel_id = ?', failing.body.id)).toEqual([
      { n: 0 },
    ]);
    expect(
      rows(
        "select actor from audit_log where operation = 'notification_channel.delete' and target = ?",
        failing.body.id,
      ),
    ).toEqual([{ actor: 'admin' }]);
  });

  it('the Unix socket is the local administrator; cross-origin browser writes are refused', async () => {
    const viaSocket = await s.call('GET', `/notifications/channels/${c1}`, undefined, { via: 'unix' });
    expect(viaSocket.body.webhookUrl).toBe(receiver.url('/hooks/c1'));
    const put = await s.call(
      'PUT',
      '/notifications/routing/restore_drill_failed',
      { severity: 'error', channelIds: [] },
      { via: 'unix' },
    );
    expect(put.status).toBe(200);
    expect(
      rows(
        "select actor from audit_log where operation = 'notification_routing.update' and target = 'restore_drill_failed'",
      ),
    ).toEqual([{ actor: 'local' }]);
    const before = s.dumpDatabase();
    const cross = await s.call(
      'PUT',
      '/notifications/routing/disk_offline',
      { severity: 'info', channelIds: [] },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(cross.status).toBe(403);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('documents the routes in the OpenAPI document, the event type enum derived from the catalog', async () => {
    const doc = await s.call('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    const put = doc.body.paths['/api/v1/notifications/routing/{eventType}'].put;
    expect(put['x-role']).toBe('admin');
    const param = put.parameters.find((p: { name: string }) => p.name === 'eventType');
    expect(param.schema.enum).toHaveLength(29);
    const body = put.requestBody.content['application/json'].schema;
    expect(body.properties.severity.enum).toEqual(['info', 'warning', 'error', 'critical']);
    expect(body.additionalProperties).toBe(false);
    for (const path of [
      '/api/v1/notifications/channels',
      '/api/v1/notifications/channels/{id}/test',
      '/api/v1/notifications/alerts',
    ]) {
      expect(doc.body.paths[path], path).toBeDefined();
    }
  });

  it('20 concurrent PUTs to one event type end in exactly one requested state', async () => {
    const ids = [c1, c2];
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      severity: (['info', 'warning', 'error', 'critical'] as const)[i % 4],
      channelIds: i % 3 === 0 ? [] : i % 3 === 1 ? [ids[0]!] : [ids[1]!, ids[0]!],
    }));
    const results = await Promise.all(
      bodies.map((b) => s.call('PUT', '/notifications/routing/reboot_required', b)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = (await s.call('GET', '/notifications/routing/reboot_required')).body;
    const matches = bodies.filter(
      (b) =>
        b.severity === final.severity &&
        JSON.stringify([...b.channelIds].sort()) === JSON.stringify(final.channelIds),
    );
    expect(matches.length).toBeGreaterThanOrEqual(1);
    expect(final.isDefaultSeverity).toBe(final.severity === 'warning');
    expect(
      rows("select count(*) as n from notify_event_severity where event_type = 'reboot_required'"),
    ).toEqual([{ n: final.isDefaultSeverity ? 0 : 1 }]);
  });
});
