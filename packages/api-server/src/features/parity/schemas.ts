import { PARITY_LIMITS, TIME_OF_DAY } from '@appliance/parity';
import * as v from 'valibot';
import { JobSchema } from '../jobs/schemas.ts';

const whole = (name: keyof typeof PARITY_LIMITS) => {
  const [min, max] = PARITY_LIMITS[name];
  return v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(min, `must be from ${min} to ${max}`),
    v.maxValue(max, `must be from ${min} to ${max}`),
  );
};
const TimeOfDay = v.pipe(
  v.string(),
  v.regex(TIME_OF_DAY, 'must be a time of day HH:MM (24-hour), e.g. 03:00'),
);

/** `PUT /settings/parity`: the whole parity section (full replace). */
export const ParitySettingsBody = v.strictObject({
  syncEnabled: v.boolean(),
  syncTime: TimeOfDay,
  scrubEnabled: v.boolean(),
  scrubTime: TimeOfDay,
  scrubEveryDays: whole('scrubEveryDays'),
  scrubPercent: whole('scrubPercent'),
  scrubOlderThanDays: whole('scrubOlderThanDays'),
  deleteThreshold: whole('deleteThreshold'),
  updateThreshold: v.nullable(whole('updateThreshold')),
  autoSyncAfterBlockedDays: v.nullable(whole('autoSyncAfterBlockedDays')),
  touchBeforeSync: v.boolean(),
});
export const ParitySettingsSchema = ParitySettingsBody;

export const SyncBody = v.strictObject({
  force: v.optional(v.pipe(v.boolean(), v.description('Skip the deletion guard (audited)'))),
});

export const ScrubBody = v.strictObject({
  percent: v.optional(whole('scrubPercent')),
  olderThanDays: v.optional(whole('scrubOlderThanDays')),
});

const Counts = v.object({
  added: v.number(),
  removed: v.number(),
  updated: v.number(),
  moved: v.number(),
  copied: v.number(),
  restored: v.number(),
});

export const ParityStatusSchema = v.object({
  configured: v.boolean(),
  parity: v.picklist(['not_configured', 'never_synced', 'in_sync', 'changes_pending']),
  lastSync: v.nullable(
    v.object({
      jobId: v.string(),
      state: v.string(),
      trigger: v.string(),
      startedAt: v.nullable(v.string()),
      endedAt: v.nullable(v.string()),
      seconds: v.nullable(v.number()),
      bytes: v.nullable(v.number()),
      forced: v.boolean(),
      error: v.nullable(v.object({ code: v.string(), message: v.string() })),
    }),
  ),
  lastSuccessfulSyncAt: v.nullable(v.string()),
  changes: v.nullable(v.object({ ...Counts.entries, at: v.string(), jobId: v.string() })),
  blockedSince: v.nullable(v.string()),
  lastScrub: v.nullable(
    v.object({
      jobId: v.string(),
      state: v.string(),
      startedAt: v.nullable(v.string()),
      endedAt: v.nullable(v.string()),
      percent: v.nullable(v.number()),
      olderThanDays: v.nullable(v.number()),
      dataErrors: v.nullable(v.number()),
      ioErrors: v.nullable(v.number()),
      fileErrors: v.nullable(v.number()),
    }),
  ),
  oldestScrubAt: v.nullable(v.string()),
  oldestScrubAgeDays: v.nullable(v.number()),
  unscrubbedPercent: v.nullable(v.number()),
  running: v.nullable(JobSchema),
  next: v.object({ sync: v.nullable(v.string()), scrub: v.nullable(v.string()) }),
});

export const ParityDiffSchema = v.object({
  diff: v.nullable(
    v.object({
      ...Counts.entries,
      equal: v.number(),
      at: v.string(),
      jobId: v.string(),
      changes: v.boolean(),
      paths: v.object({
        added: v.array(v.string()),
        removed: v.array(v.string()),
        updated: v.array(v.string()),
        moved: v.array(v.string()),
        copied: v.array(v.string()),
      }),
    }),
  ),
});
