import { scheduleAuditPrune } from '@appliance/common';
import * as v from 'valibot';
import { defineRoute, ok } from '../../http/route.ts';
import { PageQuery } from '../../http/schemas.ts';
import type { Feature } from '../feature.ts';

const EntrySchema = v.object({
  id: v.number(),
  at: v.string(),
  actor: v.string(),
  tokenId: v.nullable(v.string()),
  operation: v.string(),
  target: v.string(),
  outcome: v.picklist(['ok', 'partial', 'failed']),
  details: v.unknown(),
});

export const auditFeature: Feature = {
  name: 'audit',
  start: (ctx) =>
    scheduleAuditPrune((olderThan) => ctx.writes.run((db) => ctx.audit.prune(db, olderThan)), ctx.clock),
  routes: [
    defineRoute({
      method: 'GET',
      path: '/audit',
      role: 'viewer',
      summary: 'The audit log, newest first',
      tags: ['audit'],
      query: PageQuery,
      responses: {
        200: {
          description: 'Entries',
          schema: v.object({ entries: v.array(EntrySchema), nextBefore: v.nullable(v.number()) }),
        },
      },
      handler: ({ ctx, query }) => ok(ctx.audit.page(ctx.db, query.limit, query.before ?? null)),
    }),
  ],
};
