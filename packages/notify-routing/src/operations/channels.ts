/**
 * Notification channels (08 §7): create, read, replace, delete, and a real test send. The secret is
 * write-only (viewers see only the common fields); every change writes its audit row in the same
 * transaction.
 */
import type { ChannelBody, ChannelConfig } from '../core/channel-config.ts';
import { parseStoredConfig } from '../core/channel-config.ts';
import type { ChannelType } from '../core/channel-config.ts';
import {
  type ChannelView,
  channelExists,
  channelNotFound,
  channelView,
  planChannelCreate,
  planChannelUpdate,
  type StoredChannel,
} from '../core/channels.ts';
import { testMessage } from '../core/message.ts';
import { TEST_SEND_TIMEOUT_MS } from '../core/retry.ts';
import type { ChannelSender, SendResult } from '../node/send.ts';
import type { ChannelDeps, ChannelRecord } from './ports.ts';

export type Audience = 'admin' | 'viewer';

/** The row as the core sees it (configuration parsed). */
export function storedChannel(row: ChannelRecord): StoredChannel {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ChannelType,
    enabled: row.enabled,
    config: JSON.parse(row.config) as Record<string, unknown>,
    hasSecret: row.hasSecret,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const view = (row: ChannelRecord, audience: Audience): ChannelView =>
  channelView(storedChannel(row), audience);

async function requireChannel(deps: ChannelDeps, id: string): Promise<ChannelRecord> {
  const row = await deps.store.get(id);
  if (!row) throw channelNotFound(id);
  return row;
}

/** Creates a channel with its audit row; a name another channel has (ignoring case) is refused. */
export async function createChannel(deps: ChannelDeps, body: ChannelBody, audience: Audience) {
  const write = planChannelCreate(body);
  const row = await deps.store.write((tx) => {
    if (tx.nameTaken(write.name, null)) throw channelExists(write.name);
    const row = tx.insert(write);
    tx.audit({
      operation: 'notification_channel.create',
      target: row.id,
      details: { name: row.name, type: row.type, enabled: write.enabled, hasSecret: row.hasSecret },
    });
    return row;
  }, write.secret);
  return view(row, audience);
}

export async function listChannels(deps: ChannelDeps, audience: Audience) {
  return (await deps.store.list()).map((row) => view(row, audience));
}

export async function showChannel(deps: ChannelDeps, id: string, audience: Audience) {
  return view(await requireChannel(deps, id), audience);
}

/**
 * Replaces a channel: its type is fixed; a secret omitted keeps, null clears, a string replaces.
 * The row is read again inside the write job and checked there, with the name, before the write.
 */
export async function updateChannel(deps: ChannelDeps, id: string, body: ChannelBody, audience: Audience) {
  const write = planChannelUpdate(storedChannel(await requireChannel(deps, id)), body);
  const row = await deps.store.write((tx) => {
    const fresh = tx.get(id);
    if (!fresh) throw channelNotFound(id);
    planChannelUpdate(storedChannel(fresh), body);
    if (tx.nameTaken(write.name, id)) throw channelExists(write.name);
    const row = tx.update(id, write);
    tx.audit({
      operation: 'notification_channel.update',
      target: row.id,
      details: { name: row.name, enabled: write.enabled, secret: write.secret.kind },
    });
    return row;
  }, write.secret);
  return view(row, audience);
}

/** Deletes a channel with its routes and queued deliveries. */
export async function deleteChannel(deps: ChannelDeps, id: string): Promise<void> {
  await requireChannel(deps, id);
  await deps.store.write((tx) => {
    const fresh = tx.get(id);
    if (!fresh) throw channelNotFound(id);
    tx.remove(id);
    tx.audit({
      operation: 'notification_channel.delete',
      target: id,
      details: { name: fresh.name, type: fresh.type },
    });
  });
}

/**
 * Sends one real test message now, enabled or not. A failed delivery is a result, not a refusal,
 * and so is a stored configuration that no longer validates.
 */
export async function testChannel(deps: ChannelDeps, send: ChannelSender, id: string): Promise<SendResult> {
  const row = await requireChannel(deps, id);
  const message = testMessage(row.name, deps.hostName(), deps.clock.now().toISOString());
  let channel: ChannelConfig | null = null;
  try {
    channel = parseStoredConfig(row.type as ChannelType, JSON.parse(row.config));
  } catch {
    // reported below
  }
  const result: SendResult = channel
    ? await send(channel, await deps.store.openSecret(row.id), message, TEST_SEND_TIMEOUT_MS)
    : { success: false, error: 'the stored channel configuration is not valid; replace it with PUT' };
  await deps.store.write((tx) =>
    tx.audit({
      operation: 'notification_channel.test',
      target: row.id,
      outcome: result.success ? 'ok' : 'failed',
      details: result.success
        ? { name: row.name, success: true }
        : { name: row.name, success: false, error: result.error },
    }),
  );
  return result.success ? { success: true } : { success: false, error: result.error };
}
