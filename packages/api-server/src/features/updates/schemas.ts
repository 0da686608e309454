import * as v from 'valibot';
import { JobSchema } from '../jobs/schemas.ts';

const Package = v.object({
  name: v.string(),
  from: v.pipe(v.string(), v.description('Installed version')),
  to: v.pipe(v.string(), v.description('Candidate version')),
  origin: v.string(),
  architecture: v.string(),
  security: v.boolean(),
});

/** `GET /updates`: the last check, what is pending (security apart), the last apply. */
export const UpdatesSchema = v.object({
  checkedAt: v.nullable(v.string()),
  checkError: v.nullable(v.string()),
  nextCheckAt: v.nullable(v.string()),
  pending: v.array(Package),
  security: v.array(Package),
  lastApply: v.nullable(JobSchema),
  running: v.nullable(JobSchema),
});

export const RebootBody = v.strictObject({
  at: v.optional(
    v.pipe(
      v.string(),
      v.isoTimestamp('must be an RFC 3339 time, e.g. 2026-01-31T03:00:00Z'),
      v.description('When to reboot (RFC 3339); omitted or past: now. At most 30 days ahead.'),
    ),
  ),
});

/** `GET /system/reboot`: whether a reboot is required, and the one scheduled. */
export const RebootSchema = v.object({
  required: v.boolean(),
  packages: v.array(v.string()),
  reason: v.nullable(v.string()),
  scheduledAt: v.nullable(v.string()),
  scheduledBy: v.nullable(v.string()),
});
