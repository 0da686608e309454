import { badRequest, type Refusal, refuse } from '@appliance/common';
import type { ChannelBody, ChannelConfig, ChannelType } from './channel-config.ts';
import { splitChannelBody } from './channel-config.ts';

/** A channel as the store holds it (secret excluded: only whether one is stored). */
export interface StoredChannel {
  id: string;
  name: string;
  type: ChannelType;
  enabled: boolean;
  /** The type fields (only those that are set). */
  config: Record<string, unknown>;
  hasSecret: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Response shape of a channel for a viewer (08 §7.1): URLs, topics, headers and addresses left out. */
export type RedactedChannelView = {
  id: string;
  name: string;
  type: ChannelType;
  enabled: boolean;
  hasSecret: boolean;
  createdAt: string;
  updatedAt: string;
};

export type ChannelView = RedactedChannelView & Record<string, unknown>;

/** The wire shape: common fields, then the type fields for an admin. Never the secret. */
export function channelView(channel: StoredChannel, audience: 'admin' | 'viewer'): ChannelView {
  const base: RedactedChannelView = {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    enabled: channel.enabled,
    hasSecret: channel.hasSecret,
    createdAt: channel.createdAt,
    updatedAt: channel.updatedAt,
  };
  if (audience === 'viewer') return base;
  const { id, name, type, enabled, hasSecret, createdAt, updatedAt, ...typeFields } = {
    ...channel.config,
    ...base,
  };
  return { id, name, type, enabled, hasSecret, ...typeFields, createdAt, updatedAt };
}

/** Channels listed by lowercase name (08 §7.2). */
export function sortChannels<T extends { name: string }>(channels: readonly T[]): T[] {
  return [...channels].sort((a, b) => {
    const x = a.name.toLowerCase();
    const y = b.name.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** What to do with the stored secret on an update (08 §7.2). */
export type SecretChange = { kind: 'keep' } | { kind: 'clear' } | { kind: 'set'; value: string };

export interface ChannelWrite {
  name: string;
  enabled: boolean;
  channel: ChannelConfig;
  secret: SecretChange;
}

/** A create: a secret that is absent or null stores none. */
export function planChannelCreate(body: ChannelBody): ChannelWrite {
  const { name, enabled, channel, secret } = splitChannelBody(body);
  return {
    name,
    enabled,
    channel,
    secret: typeof secret === 'string' ? { kind: 'set', value: secret } : { kind: 'clear' },
  };
}

/**
 * A full replace of everything but the type: omitted optional fields are cleared; `secret` omitted =
 * keep, `null` = clear, a string = replace. A different `type` is refused.
 */
export function planChannelUpdate(existing: Pick<StoredChannel, 'type'>, body: ChannelBody): ChannelWrite {
  if (body.type !== existing.type) {
    throw badRequest(
      [{ path: 'type', message: `the type of a channel cannot change (it is ${existing.type})` }],
      `A channel's type cannot change: it is ${existing.type}. Delete the channel and create a new one of type ${body.type}.`,
    );
  }
  const { name, enabled, channel, secret } = splitChannelBody(body);
  const change: SecretChange =
    secret === undefined
      ? { kind: 'keep' }
      : secret === null
        ? { kind: 'clear' }
        : { kind: 'set', value: secret };
  return { name, enabled, channel, secret: change };
}

export const channelNotFound = (id: string): Refusal =>
  refuse(
    'notification_channel_not_found',
    `No notification channel has the id ${id}. GET /api/v1/notifications/channels lists the channels.`,
  );

export const channelExists = (name: string): Refusal =>
  refuse(
    'notification_channel_exists',
    `A notification channel named "${name}" already exists (names are compared ignoring case). Choose another name.`,
  );
