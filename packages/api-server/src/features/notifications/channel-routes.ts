import {
  ChannelBodySchema,
  type ChannelSender,
  createChannel,
  deleteChannel,
  listChannels,
  showChannel,
  testChannel,
  updateChannel,
} from '@appliance/notify-routing';
import * as v from 'valibot';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams } from '../../http/schemas.ts';
import type { Actor } from '../../services/audit.ts';
import { channelDeps } from './deps.ts';
import { ChannelSchema, TestResultSchema } from './schemas.ts';

const tags = ['notifications'];

const audienceOf = (actor: Actor | null) => (actor?.role === 'admin' ? 'admin' : 'viewer');

export function channelRoutes(send: ChannelSender) {
  return [
    defineRoute({
      method: 'POST',
      path: '/notifications/channels',
      role: 'admin',
      summary: 'Create a notification channel (the secret is write-only)',
      tags,
      body: ChannelBodySchema,
      responses: { 201: { description: 'The new channel', schema: ChannelSchema } },
      handler: async ({ ctx, actor, body }) =>
        created(await createChannel(channelDeps(ctx, actor), body, audienceOf(actor))),
    }),
    defineRoute({
      method: 'GET',
      path: '/notifications/channels',
      role: 'viewer',
      summary: 'List channels by lowercase name (viewers see only the common fields)',
      tags,
      responses: { 200: { description: 'Channels', schema: v.object({ channels: v.array(ChannelSchema) }) } },
      handler: async ({ ctx, actor }) =>
        ok({ channels: await listChannels(channelDeps(ctx, actor), audienceOf(actor)) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/notifications/channels/:id',
      role: 'viewer',
      summary: 'One channel (viewers see only the common fields)',
      tags,
      params: IdParams,
      responses: { 200: { description: 'The channel', schema: ChannelSchema } },
      handler: async ({ ctx, actor, params }) =>
        ok(await showChannel(channelDeps(ctx, actor), params.id, audienceOf(actor))),
    }),
    defineRoute({
      method: 'PUT',
      path: '/notifications/channels/:id',
      role: 'admin',
      summary: 'Replace a channel (type fixed; secret omitted keeps, null clears, a string replaces)',
      tags,
      params: IdParams,
      body: ChannelBodySchema,
      responses: { 200: { description: 'The channel', schema: ChannelSchema } },
      handler: async ({ ctx, actor, params, body }) =>
        ok(await updateChannel(channelDeps(ctx, actor), params.id, body, audienceOf(actor))),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/notifications/channels/:id',
      role: 'admin',
      summary: 'Delete a channel with its routes and queued deliveries',
      tags,
      params: IdParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ ctx, actor, params }) => {
        await deleteChannel(channelDeps(ctx, actor), params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/notifications/channels/:id/test',
      role: 'admin',
      summary: 'Send one real test message now (enabled or not); a failed delivery is not an HTTP error',
      tags,
      params: IdParams,
      responses: {
        200: { description: 'Whether the endpoint accepted the message', schema: TestResultSchema },
      },
      handler: async ({ ctx, actor, params }) =>
        ok(await testChannel(channelDeps(ctx, actor), send, params.id)),
    }),
  ];
}
