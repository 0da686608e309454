import {
  EventTypeParamsSchema,
  listEventTypes,
  RoutingUpdateBodySchema,
  readRoutingEntry,
  readRoutingMatrix,
  replaceRouting,
} from '@appliance/notify-routing';
import * as v from 'valibot';
import { defineRoute, ok } from '../../http/route.ts';
import { EventTypesSchema, RoutingEntrySchema } from './schemas.ts';
import { routingWrites } from './deps.ts';
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
    handler: ({ ctx }) => ok(listEventTypes((eventType) => ctx.observed.observed(eventType, ctx))),
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
    handler: async ({ ctx, actor, params, body }) =>
      ok(await replaceRouting(routingWrites(ctx, actor), params.eventType, body)),
  }),
];
