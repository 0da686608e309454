import * as v from 'valibot';
import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { ChannelBodySchema } from './channel-config.ts';
import {
  channelView,
  planChannelCreate,
  planChannelUpdate,
  sortChannels,
  type StoredChannel,
} from './channels.ts';

const stored: StoredChannel = {
  id: 'aaaaaaaa-0000-4000-8000-000000000001',
  name: 'Hook',
  type: 'webhook',
  enabled: true,
  config: { webhookUrl: 'https://hooks.example.com/in', webhookMethod: 'POST' },
  hasSecret: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};

const body = (extra: Record<string, unknown> = {}) =>
  v.parse(ChannelBodySchema, {
    name: 'Hook',
    type: 'webhook',
    webhookUrl: 'https://h.example.com',
    ...extra,
  });

describe('channelView', () => {
  it('shows the type fields to an admin, never a secret', () => {
    expect(channelView(stored, 'admin')).toEqual({
      id: stored.id,
      name: 'Hook',
      type: 'webhook',
      enabled: true,
      hasSecret: true,
      webhookUrl: 'https://hooks.example.com/in',
      webhookMethod: 'POST',
      createdAt: stored.createdAt,
      updatedAt: stored.updatedAt,
    });
  });

  it('redacts a viewer read to the common fields', () => {
    const view = channelView(stored, 'viewer');
    expect(Object.keys(view).sort()).toEqual([
      'createdAt',
      'enabled',
      'hasSecret',
      'id',
      'name',
      'type',
      'updatedAt',
    ]);
    expect(JSON.stringify(view)).not.toContain('hooks.example.com');
  });
});

describe('channel writes', () => {
  it('create: a secret string is stored, null or absent stores none', () => {
    expect(planChannelCreate(body({ secret: 's3cret' })).secret).toEqual({ kind: 'set', value: 's3cret' });
    expect(planChannelCreate(body({ secret: null })).secret).toEqual({ kind: 'clear' });
    expect(planChannelCreate(body()).secret).toEqual({ kind: 'clear' });
  });

  it('update: omitted keeps, null clears, a string replaces; omitted fields are cleared', () => {
    expect(planChannelUpdate(stored, body()).secret).toEqual({ kind: 'keep' });
    expect(planChannelUpdate(stored, body({ secret: null })).secret).toEqual({ kind: 'clear' });
    expect(planChannelUpdate(stored, body({ secret: 'new' })).secret).toEqual({ kind: 'set', value: 'new' });
    expect(planChannelUpdate(stored, body({ enabled: false })).channel.config).toEqual({
      webhookUrl: 'https://h.example.com',
      webhookMethod: 'POST',
    });
  });

  it('update: refuses a different type with 400 at path type', () => {
    const gotify = v.parse(ChannelBodySchema, { name: 'Hook', type: 'gotify', gotifyUrl: 'http://g.lan' });
    try {
      planChannelUpdate(stored, gotify);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(400);
      expect((error as AppError).details).toEqual({ issues: [expect.objectContaining({ path: 'type' })] });
    }
  });

  it('lists channels by lowercase name', () => {
    expect(
      sortChannels([{ name: 'beta' }, { name: 'Alpha' }, { name: 'alpha2' }]).map((c) => c.name),
    ).toEqual(['Alpha', 'alpha2', 'beta']);
  });
});
