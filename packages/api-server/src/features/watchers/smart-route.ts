/** `GET /disks/:id/smart`: a disk's last SMART reading, what it means, and the kept history. */
import { smartReport } from '@appliance/watchers';
import * as v from 'valibot';
import { defineRoute, ok } from '../../http/route.ts';
import { smartReportPorts } from './deps.ts';

const Counters = v.record(v.string(), v.number());

export const SmartReportSchema = v.object({
  device: v.string(),
  diskKey: v.string(),
  model: v.nullable(v.string()),
  serial: v.nullable(v.string()),
  /** The array slot's mountpoint, or null for a disk outside the array (not watched). */
  slot: v.nullable(v.string()),
  last: v.nullable(
    v.object({
      at: v.string(),
      state: v.picklist(['ok', 'standby', 'unavailable', 'error']),
      detail: v.nullable(v.string()),
      passed: v.nullable(v.boolean()),
      temperatureC: v.nullable(v.number()),
      powerOnHours: v.nullable(v.number()),
      counters: Counters,
      findings: v.array(
        v.object({ id: v.string(), eventType: v.string(), value: v.string(), message: v.string() }),
      ),
    }),
  ),
  history: v.array(
    v.object({
      at: v.string(),
      passed: v.nullable(v.boolean()),
      temperatureC: v.nullable(v.number()),
      powerOnHours: v.nullable(v.number()),
      counters: Counters,
    }),
  ),
});

export const smartRoute = defineRoute({
  method: 'GET',
  path: '/disks/:id/smart',
  role: 'viewer',
  summary:
    "A disk's last SMART reading (by kernel name: sda, nvme0n1), its findings and the history of its values, newest first",
  tags: ['disks'],
  params: v.strictObject({
    id: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9]{0,31}$/, 'a kernel disk name such as sda or nvme0n1')),
  }),
  query: v.strictObject({
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[1-9][0-9]{0,3}$/, 'a whole number from 1 to 5000'),
        v.transform(Number),
        v.maxValue(5000, 'at most 5000'),
      ),
      '500',
    ),
  }),
  responses: { 200: { description: 'SMART report', schema: SmartReportSchema } },
  handler: async ({ ctx, params, query }) =>
    ok(await smartReport(smartReportPorts(ctx), params.id, query.limit)),
});
