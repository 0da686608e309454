import {
  DEFAULT_DRILL,
  DEFAULT_RETENTION,
  MAX_RESTORE_PATHS,
  PLAN_LIMITS,
  PLAN_NAME_PATTERN,
  PLAN_NAME_RULE,
  TIME_OF_DAY,
  WEEKDAYS,
} from '@appliance/backups';
import { LABEL_PATTERN, LABEL_RULE } from '@appliance/external-disk';
import { SHARE_NAME_PATTERN } from '@appliance/shares';
import { STACK_NAME } from '@appliance/template-installer';
import * as v from 'valibot';
import { ErrorBody, Iso } from '../../http/schemas.ts';

export const PlanName = v.pipe(v.string(), v.regex(PLAN_NAME_PATTERN, `must be ${PLAN_NAME_RULE}`));
export const PlanParams = v.strictObject({ name: PlanName });

const Time = v.pipe(v.string(), v.regex(TIME_OF_DAY, 'must be a time of day HH:MM (24-hour), e.g. 03:30'));
const Count = v.pipe(
  v.number(),
  v.integer('must be a whole number'),
  v.minValue(PLAN_LIMITS.retention.min),
  v.maxValue(PLAN_LIMITS.retention.max, `must be at most ${PLAN_LIMITS.retention.max}`),
);

export const ScheduleSchema = v.variant('kind', [
  v.strictObject({ kind: v.literal('daily'), time: Time }),
  v.strictObject({
    kind: v.literal('weekly'),
    weekday: v.picklist(WEEKDAYS, `must be one of ${WEEKDAYS.join(', ')}`),
    time: Time,
  }),
]);

const RetentionSchema = v.strictObject({ daily: Count, weekly: Count, monthly: Count });
const DrillSchema = v.strictObject({
  enabled: v.boolean(),
  everyDays: v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(PLAN_LIMITS.everyDays.min),
    v.maxValue(PLAN_LIMITS.everyDays.max, `must be at most ${PLAN_LIMITS.everyDays.max}`),
  ),
  time: Time,
});
const StackChoiceSchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(STACK_NAME, 'must be a stack name')),
  keepRunning: v.optional(v.boolean(), false),
});

/** The fields of a plan an administrator sets (POST adds `name`; PUT replaces them all). */
const specEntries = {
  enabled: v.optional(v.boolean(), true),
  destination: v.pipe(v.string(), v.regex(LABEL_PATTERN, `must be an external disk label: ${LABEL_RULE}`)),
  configuration: v.optional(v.boolean(), false),
  stacks: v.optional(v.pipe(v.array(StackChoiceSchema), v.maxLength(PLAN_LIMITS.stacks)), []),
  shares: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(SHARE_NAME_PATTERN, 'must be a share name'))),
      v.maxLength(PLAN_LIMITS.shares),
    ),
    [],
  ),
  schedule: ScheduleSchema,
  retention: v.optional(RetentionSchema, DEFAULT_RETENTION),
  drill: v.optional(DrillSchema, DEFAULT_DRILL),
};

export const CreatePlanBody = v.strictObject({ name: PlanName, ...specEntries });
export const UpdatePlanBody = v.strictObject(specEntries);
export const DeletePlanBody = v.strictObject({
  confirmation: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1024)))),
});

const RunSummary = v.object({
  jobId: v.string(),
  state: v.string(),
  at: v.nullable(Iso),
});

export const PlanSchema = v.object({
  name: v.string(),
  enabled: v.boolean(),
  destination: v.string(),
  configuration: v.boolean(),
  stacks: v.array(v.object({ name: v.string(), keepRunning: v.boolean() })),
  shares: v.array(v.string()),
  schedule: ScheduleSchema,
  retention: RetentionSchema,
  drill: DrillSchema,
  createdAt: Iso,
  updatedAt: Iso,
  repository: v.pipe(v.string(), v.description('Where the restic repository is, on the destination')),
  latestConfigArchive: v.pipe(
    v.nullable(v.string()),
    v.description(
      'The latest configuration archive beside the repository (import it on a new box first: it carries the repository password in secrets.age)',
    ),
  ),
  hasPassword: v.pipe(
    v.boolean(),
    v.description(
      'The repository password is known here (false after an import whose secrets.age did not open)',
    ),
  ),
  status: v.object({
    lastRun: v.nullable(RunSummary),
    lastSuccessAt: v.nullable(Iso),
    nextRunAt: v.nullable(Iso),
    lastDrill: v.nullable(RunSummary),
    nextDrillAt: v.nullable(Iso),
    stale: v.boolean(),
  }),
});
export const PlanListSchema = v.object({ plans: v.array(PlanSchema) });

export const PartSchema = v.variant('kind', [
  v.object({ kind: v.literal('config') }),
  v.object({ kind: v.literal('stack'), name: v.string() }),
  v.object({ kind: v.literal('share'), name: v.string() }),
]);

/** `?plan=<name>`: the plan whose snapshots a route lists or reads. */
export const SnapshotQuery = v.strictObject({ plan: PlanName });
export const SnapshotSchema = v.object({
  id: v.string(),
  shortId: v.string(),
  time: Iso,
  part: v.nullable(PartSchema),
  /** For app data: the folders it holds. */
  folders: v.array(v.string()),
  hostname: v.string(),
  sizeBytes: v.nullable(v.number()),
  dataAddedBytes: v.nullable(v.number()),
  files: v.nullable(v.number()),
});
export const SnapshotListSchema = v.object({
  plan: v.string(),
  destination: v.string(),
  repository: v.string(),
  snapshots: v.array(SnapshotSchema),
});

const SnapshotId = v.pipe(
  v.string(),
  v.regex(/^[0-9a-f]{8,64}$/, 'must be a snapshot id (8 to 64 hex digits)'),
);
export const SnapshotParams = v.strictObject({ id: SnapshotId });

export const RestoreBody = v.strictObject({
  plan: PlanName,
  snapshot: SnapshotId,
  share: v.optional(v.pipe(v.string(), v.regex(SHARE_NAME_PATTERN, 'must be a share name'))),
  stack: v.optional(v.pipe(v.string(), v.regex(STACK_NAME, 'must be a stack name'))),
  paths: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.maxLength(4096))),
      v.maxLength(MAX_RESTORE_PATHS, `at most ${MAX_RESTORE_PATHS} paths`),
    ),
    [],
  ),
  folder: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  confirmation: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1024)))),
});

/** The error answers every plan and snapshot route documents. */
export const PlanErrors = {
  400: { description: 'Bad input', schema: ErrorBody },
  404: { description: 'Unknown plan', schema: ErrorBody },
};
