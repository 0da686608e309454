/** `GET /health` (admin): each watcher, its last run and failure, and the conditions that hold now. */
import * as v from 'valibot';
import { defineRoute, ok } from '../../http/route.ts';

const NoteSchema = v.object({ subject: v.string(), message: v.string() });

export const HealthSchema = v.object({
  watchers: v.array(
    v.object({
      name: v.string(),
      events: v.array(v.string()),
      intervalSeconds: v.number(),
      enabled: v.boolean(),
      disabledReason: v.nullable(v.string()),
      running: v.boolean(),
      runs: v.number(),
      lastRunAt: v.nullable(v.string()),
      lastDurationMs: v.nullable(v.number()),
      error: v.nullable(v.object({ message: v.string(), since: v.string() })),
      notes: v.array(NoteSchema),
    }),
  ),
  conditions: v.array(
    v.object({
      key: v.string(),
      eventType: v.string(),
      source: v.string(),
      subject: v.string(),
      value: v.nullable(v.string()),
      title: v.string(),
      message: v.string(),
      since: v.string(),
    }),
  ),
});

export const healthRoute = defineRoute({
  method: 'GET',
  path: '/health',
  role: 'admin',
  summary: 'Each watcher (last run, failure, notes) and the conditions that hold now (thing, value, since)',
  tags: ['health'],
  responses: { 200: { description: 'Watchers and conditions', schema: HealthSchema } },
  handler: ({ ctx }) => ok({ watchers: ctx.watchers.status(), conditions: ctx.conditions.holding() }),
});
