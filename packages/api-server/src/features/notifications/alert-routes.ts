import { listAlerts } from '@appliance/notify-routing';
import { defineRoute, ok } from '../../http/route.ts';
import { PageQuery } from '../../http/schemas.ts';
import { AlertsPageSchema } from './schemas.ts';
import { alertRows } from './store.ts';

export const alertRoutes = [
  defineRoute({
    method: 'GET',
    path: '/notifications/alerts',
    role: 'viewer',
    summary: 'In-app alerts, newest first (every raised event, routed or not)',
    tags: ['notifications'],
    query: PageQuery,
    responses: { 200: { description: 'A page of alerts', schema: AlertsPageSchema } },
    handler: ({ ctx, query }) => ok(listAlerts(alertRows(ctx.db), query.limit, query.before ?? null)),
  }),
];
