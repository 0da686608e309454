import { TIME_OF_DAY } from '@appliance/parity';
import * as v from 'valibot';
import { JobSchema } from '../jobs/schemas.ts';

const Verify = v.pipe(
  v.picklist(['size-mtime', 'sha256']),
  v.description(
    'How a copy is verified before the cache copy is removed: size and mtime, or also SHA-256 of both',
  ),
);

/** `PUT /settings/mover` (full replace). */
export const MoverSettingsBody = v.strictObject({
  enabled: v.boolean(),
  time: v.pipe(v.string(), v.regex(TIME_OF_DAY, 'must be a time of day HH:MM (24-hour), e.g. 02:00')),
  verify: Verify,
});
export const MoverSettingsSchema = MoverSettingsBody;

/** `POST /mover/run`: the settings' verification unless given. */
export const MoverRunBody = v.strictObject({ verify: v.optional(Verify) });

const SkippedSchema = v.object({
  share: v.string(),
  path: v.pipe(v.string(), v.description('Relative to the share')),
  reason: v.picklist([
    'open_for_writing',
    'exists_on_array',
    'no_space',
    'changed_during_move',
    'copy_failed',
  ]),
});

export const MoverStatusSchema = v.object({
  configured: v.pipe(v.boolean(), v.description('An array with a cache disk exists')),
  shares: v.pipe(v.array(v.string()), v.description('The cache-then-move shares the mover moves')),
  settings: MoverSettingsSchema,
  running: v.nullable(JobSchema),
  lastRun: v.nullable(
    v.object({
      jobId: v.string(),
      state: v.string(),
      trigger: v.string(),
      startedAt: v.nullable(v.string()),
      endedAt: v.nullable(v.string()),
      movedFiles: v.nullable(v.number()),
      movedBytes: v.nullable(v.number()),
      skippedCount: v.nullable(v.number()),
      skippedByReason: v.nullable(v.record(v.string(), v.number())),
      skipped: v.pipe(v.array(SkippedSchema), v.description('The first 1,000 skipped files')),
      error: v.nullable(v.object({ code: v.string(), message: v.string() })),
    }),
  ),
  nextRun: v.nullable(v.string()),
});
