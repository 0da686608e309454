import {
  applyRoutingReplace,
  EVENT_CATALOG,
  EventTypeParamsSchema,
  normalizeRoutingUpdate,
  planRoutingReplace,
  RoutingUpdateBodySchema,
  readRoutingEntry,
  readRoutingMatrix,
} from '@appliance/notify-routing';
import * as v from 'valibot';
import { defineRoute, ok } from '../../http/route.ts';
import { EventTypesSchema, RoutingEntrySchema } from './schemas.ts';
import { routingStore } from './store.ts';

const tags = ['notifications'];

export const routingRoutes = [
  defineRoute({
    method: 'GET',
    path: '/notifications/event-types',
    role: 'viewer',
    summary:
      'The compiled-in event catalog with default severities, in catalog order, and whether this installation can raise each one (observed)',
    tags,
    responses: { 200: { description: 'Event types', schema: EventTypesSchema } },
    handler: ({ ctx }) =>
      ok({
        eventTypes: EVENT_CATALOG.map(({ eventType, defaultSeverity, description }) => ({
          eventType,
          defaultSeverity,
          description,
          observed: ctx.observed.observed(eventType, ctx),
        })),
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/notifications/routing',
    role: 'viewer',
    summary: 'The routing matrix: one entry per catalog event, in catalog order',
    tags,
    responses: {
      200: { description: 'Routing', schema: v.object({ routing: v.array(RoutingEntrySchema) }) },
    },
    handler: ({ ctx }) => ok({ routing: readRoutingMatrix(routingStore(ctx.db)) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/notifications/routing/:eventType',
    role: 'viewer',
    summary: "One event type's routing entry",
    tags,
    params: EventTypeParamsSchema,
    responses: { 200: { description: 'Routing entry', schema: RoutingEntrySchema } },
    handler: ({ ctx, params }) => ok(readRoutingEntry(routingStore(ctx.db), params.eventType)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/notifications/routing/:eventType',
    role: 'admin',
    summary: "Replace one event type's severity and routed channels (04 §2.1)",
    tags,
    params: EventTypeParamsSchema,
    body: RoutingUpdateBodySchema,
    responses: { 200: { description: 'The routing entry after the commit', schema: RoutingEntrySchema } },
    handler: async ({ ctx, actor, params, body }) => {
      // Check 8 (duplicates after lowercasing) and normalisation; the schemas did checks 6–7.
      const plan = planRoutingReplace(normalizeRoutingUpdate(params.eventType, body));
      const entry = await ctx.writes.run((db) => {
        const stored = applyRoutingReplace(routingStore(db), plan);
        ctx.audit.record(db, actor, {
          operation: 'notification_routing.update',
          target: plan.eventType,
          details: { severity: stored.severity, channelIds: stored.channelIds },
        });
        return stored;
      });
      return ok(entry);
    },
  }),
];
