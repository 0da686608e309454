/** `GET /disks/:id/smart`: a disk's last SMART reading, what it means, and the kept history. */
import { AppError, findDisk } from '@appliance/common';
import { slotIdentity, smartCounters, smartDiskKey, smartFindings } from '@appliance/watchers';
import * as v from 'valibot';
import { defineRoute, ok } from '../../http/route.ts';
import { listSlots } from '../disks/store.ts';
import { lastReadings } from './deps.ts';
import { readWatcherSettings, smartHistoryOf } from './store.ts';

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
  handler: async ({ ctx, params, query }) => {
    const device = `/dev/${params.id}`;
    const inventory = await ctx.inventory.read();
    const entry = inventory.disks.find((d) => d.device === device);
    if (!entry)
      throw new AppError(
        404,
        'disk_not_found',
        `There is no disk ${params.id}; list the disks with GET /disks.`,
        {
          device,
        },
      );
    const slot = listSlots(ctx.db).find((s) => findDisk(slotIdentity(s), [entry]).status === 'found') ?? null;
    const diskKey = smartDiskKey({
      wwn: slot ? slot.wwn : entry.wwn,
      serial: slot ? slot.serial : entry.serial,
      device,
    });
    const last = lastReadings(ctx).get(diskKey) ?? null;
    const th = readWatcherSettings(ctx.db).smart;
    const history = smartHistoryOf(ctx.db, diskKey, query.limit);
    return ok({
      device,
      diskKey,
      model: entry.model ?? last?.reading.model ?? null,
      serial: slot?.serial ?? entry.serial ?? last?.reading.serial ?? null,
      slot: slot?.mountpoint ?? null,
      last: last
        ? {
            at: last.at,
            state: last.reading.state,
            detail: last.reading.detail,
            passed: last.reading.passed,
            temperatureC: last.reading.temperatureC,
            powerOnHours: last.reading.powerOnHours,
            counters: smartCounters(last.reading),
            findings:
              last.reading.state === 'ok'
                ? smartFindings(last.reading, th).map((f) => ({
                    id: f.id,
                    eventType: f.eventType,
                    value: f.value,
                    message: `${f.what} ${f.todo}`,
                  }))
                : [],
          }
        : null,
      history,
    });
  },
});
