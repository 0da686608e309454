/** The channel operations and the delivery queue on in-memory ports. */
import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import type { ChannelBody } from '../core/channel-config.ts';
import type { ChannelSender } from '../node/send.ts';
import { createMemoryChannelStore, memoryDeliveryRows } from '../test-support/memory-channels.ts';
import {
  createChannel,
  deleteChannel,
  listChannels,
  showChannel,
  testChannel,
  updateChannel,
} from './channels.ts';
import { createDeliveryQueue } from './delivery-queue.ts';
import type { DueRow } from './ports.ts';

const hook = (name: string, secret?: string | null): ChannelBody =>
  ({
    name,
    enabled: true,
    type: 'ntfy',
    ntfyUrl: 'https://ntfy.example.org',
    ntfyTopic: 'nas',
    ...(secret !== undefined ? { secret } : {}),
  }) as ChannelBody;

function setup() {
  const store = createMemoryChannelStore();
  const deps = { store, hostName: () => 'nas', clock: { now: () => new Date('2026-11-28T12:00:00Z') } };
  return { store, deps };
}

const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(Refusal);
  return e as Refusal;
};

describe('channel operations', () => {
  it('creates, lists by lowercase name, hides the secret from viewers, refuses a taken name', async () => {
    const { store, deps } = setup();
    const b = await createChannel(deps, hook('beta', 'tok'), 'admin');
    await createChannel(deps, hook('Alpha'), 'admin');
    expect((await listChannels(deps, 'viewer')).map((c) => c.name)).toEqual(['Alpha', 'beta']);
    expect(b).toMatchObject({ name: 'beta', hasSecret: true, ntfyTopic: 'nas' });
    expect(await showChannel(deps, b.id, 'viewer')).not.toHaveProperty('ntfyTopic');
    expect((await refusal(createChannel(deps, hook('BETA'), 'admin'))).code).toBe(
      'notification_channel_exists',
    );
    expect(store.audits).toEqual([
      `notification_channel.create ${b.id} ok`,
      'notification_channel.create channel-2 ok',
    ]);
  });

  it('replace keeps, clears or sets the secret; unknown ids and a type change are refused', async () => {
    const { store, deps } = setup();
    const c = await createChannel(deps, hook('one', 'tok'), 'admin');
    expect(await updateChannel(deps, c.id, hook('one'), 'admin')).toMatchObject({ hasSecret: true });
    expect(await updateChannel(deps, c.id, hook('one', null), 'admin')).toMatchObject({ hasSecret: false });
    expect(store.secrets.has(c.id)).toBe(false);
    expect((await refusal(updateChannel(deps, 'nope', hook('x'), 'admin'))).code).toBe(
      'notification_channel_not_found',
    );
    const gotify = {
      name: 'one',
      type: 'gotify',
      gotifyUrl: 'https://g.example.org',
      enabled: true,
    } as ChannelBody;
    expect((await refusal(updateChannel(deps, c.id, gotify, 'admin'))).code).toBe('bad_request');
    await deleteChannel(deps, c.id);
    expect((await refusal(deleteChannel(deps, c.id))).code).toBe('notification_channel_not_found');
  });

  it('each change writes its audit row: create, update (the secret change), delete, test', async () => {
    const { store, deps } = setup();
    const c = await createChannel(deps, hook('one', 'tok'), 'admin');
    await updateChannel(deps, c.id, { ...hook('two', null), enabled: false }, 'admin');
    await testChannel(deps, async () => ({ success: true }), c.id);
    await deleteChannel(deps, c.id);
    expect(store.auditEntries).toEqual([
      {
        operation: 'notification_channel.create',
        target: c.id,
        details: { name: 'one', type: 'ntfy', enabled: true, hasSecret: true },
      },
      {
        operation: 'notification_channel.update',
        target: c.id,
        details: { name: 'two', enabled: false, secret: 'clear' },
      },
      {
        operation: 'notification_channel.test',
        target: c.id,
        outcome: 'ok',
        details: { name: 'two', success: true },
      },
      { operation: 'notification_channel.delete', target: c.id, details: { name: 'two', type: 'ntfy' } },
    ]);
  });

  it('a refused update (a name another channel has) writes nothing: no row change, no audit row', async () => {
    const { store, deps } = setup();
    const one = await createChannel(deps, hook('one', 'tok'), 'admin');
    await createChannel(deps, hook('two'), 'admin');
    expect((await refusal(updateChannel(deps, one.id, hook('TWO', null), 'admin'))).code).toBe(
      'notification_channel_exists',
    );
    expect(await showChannel(deps, one.id, 'admin')).toMatchObject({ name: 'one', hasSecret: true });
    expect(store.secrets.get(one.id)).toBe('tok');
    expect(store.audits).toHaveLength(2);
  });

  it('a test send reports the endpoint’s answer and audits it; an unreadable stored config is a failed send', async () => {
    const { store, deps } = setup();
    const c = await createChannel(deps, hook('one', 'tok'), 'admin');
    const sent: unknown[] = [];
    const send: ChannelSender = async (channel, secret, message, timeoutMs) => {
      sent.push({ type: channel.type, secret, eventType: message.eventType, host: message.host, timeoutMs });
      return { success: false, error: 'HTTP 503' };
    };
    expect(await testChannel(deps, send, c.id)).toEqual({ success: false, error: 'HTTP 503' });
    expect(sent).toEqual([
      { type: 'ntfy', secret: 'tok', eventType: 'test', host: 'nas', timeoutMs: 15_000 },
    ]);
    store.corrupt(c.id, '{not json');
    expect(await testChannel(deps, send, c.id)).toEqual({
      success: false,
      error: 'the stored channel configuration is not valid; replace it with PUT',
    });
    expect(sent).toHaveLength(1);
    expect(store.audits.slice(-2)).toEqual([
      `notification_channel.test ${c.id} failed`,
      `notification_channel.test ${c.id} failed`,
    ]);
  });
});

describe('delivery queue', () => {
  const row = (
    id: number,
    over: Partial<DueRow['channel']> = {},
    openSecret = () => null as string | null,
  ) => ({
    id,
    attempts: 1,
    channel: {
      enabled: true,
      type: 'ntfy',
      config: JSON.stringify({ ntfyUrl: 'https://ntfy.example.org', ntfyTopic: 'nas' }),
      ...over,
    },
    openSecret,
    alert: { eventType: 'disk_offline', severity: 'error', title: 'T', message: 'M', occurredAt: 'then' },
  });

  it('sends the ready ones with the host; a disabled or unreadable channel ends failed, never sent', async () => {
    const rows = memoryDeliveryRows([
      row(1),
      row(2, { enabled: false }),
      row(3, { config: '{' }),
      row(4, {}, () => {
        throw new Error('sealed with another key');
      }),
    ]);
    const queue = createDeliveryQueue(rows);
    const due = await queue.due(new Date('2026-11-28T12:00:00Z'), 10);
    expect(due.map((d) => [d.id, d.message.host, d.message.severity])).toEqual([[1, 'nas', 'error']]);
    expect(rows.failed).toEqual([
      { id: 2, error: 'the channel was disabled before delivery', at: '2026-11-28T12:00:00.000Z' },
      { id: 3, error: 'the channel configuration could not be read', at: '2026-11-28T12:00:00.000Z' },
      { id: 4, error: 'the channel configuration could not be read', at: '2026-11-28T12:00:00.000Z' },
    ]);
    await queue.record(
      1,
      { status: 'delivered', attempts: 2, nextAttemptAt: null, lastError: null },
      new Date(0),
    );
    expect(rows.recorded).toEqual([{ id: 1, status: 'delivered', at: '1970-01-01T00:00:00.000Z' }]);
  });
});
