import {
  ChannelBodySchema,
  type ChannelConfig,
  type NotificationMessage,
  type SendResult,
  type ChannelSender,
  type ChannelWrite,
  channelExists,
  channelNotFound,
  channelView,
  parseStoredConfig,
  planChannelCreate,
  planChannelUpdate,
  TEST_SEND_TIMEOUT_MS,
  testMessage,
} from '@appliance/notify-routing';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { notifyChannels, notifyDeliveries, notifyRoutes, settings } from '../../db/schema.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams } from '../../http/schemas.ts';
import type { Actor } from '../../services/audit.ts';
import { ChannelSchema, TestResultSchema } from './schemas.ts';
import { type ChannelRow, findChannel, listChannels, nameTaken, toStoredChannel } from './store.ts';

const tags = ['notifications'];

const audienceOf = (actor: Actor | null) => (actor?.role === 'admin' ? 'admin' : 'viewer');
const view = (row: ChannelRow, actor: Actor | null) => channelView(toStoredChannel(row), audienceOf(actor));

/** The settings hostname (08 §7.4 `host`). */
export function hostName(ctx: AppContext): string {
  return ctx.db.select({ hostname: settings.hostname }).from(settings).get()?.hostname ?? 'appliance';
}

/** Seal outside the write job (CPU only); `undefined` keeps the stored secret. */
function sealedSecret(ctx: AppContext, write: ChannelWrite): Buffer | null | undefined {
  if (write.secret.kind === 'keep') return undefined;
  return write.secret.kind === 'set' ? ctx.sealer.seal(write.secret.value) : null;
}

const rowValues = (write: ChannelWrite) => ({
  name: write.name,
  enabled: write.enabled ? 1 : 0,
  config: JSON.stringify(write.channel.config),
});

export function channelRoutes(send: ChannelSender) {
  /** A stored configuration that no longer validates is a failed send, not a 500. */
  const sendTest = async (
    ctx: AppContext,
    row: ChannelRow,
    message: NotificationMessage,
  ): Promise<SendResult> => {
    let channel: ChannelConfig;
    try {
      channel = parseStoredConfig(row.type, JSON.parse(row.config));
    } catch {
      return { success: false, error: 'the stored channel configuration is not valid; replace it with PUT' };
    }
    return send(
      channel,
      row.secret ? ctx.sealer.unsealText(row.secret) : null,
      message,
      TEST_SEND_TIMEOUT_MS,
    );
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/notifications/channels',
      role: 'admin',
      summary: 'Create a notification channel (the secret is write-only)',
      tags,
      body: ChannelBodySchema,
      responses: { 201: { description: 'The new channel', schema: ChannelSchema } },
      handler: async ({ ctx, actor, body }) => {
        const write = planChannelCreate(body);
        const secret = sealedSecret(ctx, write) ?? null;
        const now = ctx.clock.now().toISOString();
        const row = await ctx.writes.run((db) => {
          if (nameTaken(db, write.name, null)) throw channelExists(write.name);
          const inserted = db
            .insert(notifyChannels)
            .values({
              id: ctx.random.uuid(),
              type: write.channel.type,
              ...rowValues(write),
              secret,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
            .get();
          ctx.audit.record(db, actor, {
            operation: 'notification_channel.create',
            target: inserted.id,
            details: {
              name: inserted.name,
              type: inserted.type,
              enabled: write.enabled,
              hasSecret: secret !== null,
            },
          });
          return inserted;
        });
        return created(view(row, actor));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/notifications/channels',
      role: 'viewer',
      summary: 'List channels by lowercase name (viewers see only the common fields)',
      tags,
      responses: { 200: { description: 'Channels', schema: v.object({ channels: v.array(ChannelSchema) }) } },
      handler: ({ ctx, actor }) => ok({ channels: listChannels(ctx.db).map((row) => view(row, actor)) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/notifications/channels/:id',
      role: 'viewer',
      summary: 'One channel (viewers see only the common fields)',
      tags,
      params: IdParams,
      responses: { 200: { description: 'The channel', schema: ChannelSchema } },
      handler: ({ ctx, actor, params }) => {
        const row = findChannel(ctx.db, params.id);
        if (!row) throw channelNotFound(params.id);
        return ok(view(row, actor));
      },
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
      handler: async ({ ctx, actor, params, body }) => {
        const current = findChannel(ctx.db, params.id);
        if (!current) throw channelNotFound(params.id);
        const write = planChannelUpdate(toStoredChannel(current), body);
        const secret = sealedSecret(ctx, write);
        const now = ctx.clock.now().toISOString();
        const row = await ctx.writes.run((db) => {
          const fresh = findChannel(db, params.id);
          if (!fresh) throw channelNotFound(params.id);
          planChannelUpdate(toStoredChannel(fresh), body);
          if (nameTaken(db, write.name, params.id)) throw channelExists(write.name);
          const updated = db
            .update(notifyChannels)
            .set({ ...rowValues(write), ...(secret !== undefined ? { secret } : {}), updatedAt: now })
            .where(eq(notifyChannels.id, params.id))
            .returning()
            .get()!;
          ctx.audit.record(db, actor, {
            operation: 'notification_channel.update',
            target: updated.id,
            details: { name: updated.name, enabled: write.enabled, secret: write.secret.kind },
          });
          return updated;
        });
        return ok(view(row, actor));
      },
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
        if (!findChannel(ctx.db, params.id)) throw channelNotFound(params.id);
        await ctx.writes.run((db) => {
          const fresh = findChannel(db, params.id);
          if (!fresh) throw channelNotFound(params.id);
          db.delete(notifyRoutes).where(eq(notifyRoutes.channelId, params.id)).run();
          db.delete(notifyDeliveries).where(eq(notifyDeliveries.channelId, params.id)).run();
          db.delete(notifyChannels).where(eq(notifyChannels.id, params.id)).run();
          ctx.audit.record(db, actor, {
            operation: 'notification_channel.delete',
            target: params.id,
            details: { name: fresh.name, type: fresh.type },
          });
        });
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
      handler: async ({ ctx, actor, params }) => {
        const row = findChannel(ctx.db, params.id);
        if (!row) throw channelNotFound(params.id);
        const message = testMessage(row.name, hostName(ctx), ctx.clock.now().toISOString());
        const result = await sendTest(ctx, row, message);
        await ctx.writes.run((db) =>
          ctx.audit.record(db, actor, {
            operation: 'notification_channel.test',
            target: row.id,
            outcome: result.success ? 'ok' : 'failed',
            details: result.success
              ? { name: row.name, success: true }
              : { name: row.name, success: false, error: result.error },
          }),
        );
        return ok(result.success ? { success: true } : { success: false, error: result.error });
      },
    }),
  ];
}
