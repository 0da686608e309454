/** Schemas of the stack routes (issue 35): state, operations, removal, logs. */
import { isStackName, stackNotFound } from '@appliance/template-installer';
import * as v from 'valibot';
import { StackSchema } from './schemas.ts';

/** `:name` failing the stack name pattern is 404 stack_not_found, as an unknown name. */
export const StackParams = v.strictObject({
  name: v.pipe(
    v.string(),
    v.transform((name) => {
      if (!isStackName(name)) throw stackNotFound(name);
      return name;
    }),
  ),
});

const Port = v.object({
  hostIp: v.string(),
  published: v.number(),
  target: v.number(),
  protocol: v.string(),
});

const ContainerSchema = v.object({
  id: v.string(),
  name: v.string(),
  state: v.string(),
  exitCode: v.nullable(v.number()),
  health: v.nullable(v.picklist(['healthy', 'unhealthy', 'starting'])),
  status: v.string(),
  image: v.string(),
  imageId: v.string(),
  digests: v.array(v.string()),
  ports: v.array(Port),
});

export const StackStateSchema = v.object({
  ...StackSchema.entries,
  status: v.picklist(['running', 'partial', 'stopped', 'not_created', 'restarting', 'unhealthy', 'unknown']),
  services: v.array(
    v.object({
      name: v.string(),
      containers: v.array(ContainerSchema),
      updateAvailable: v.nullable(v.string()),
    }),
  ),
  updateAvailable: v.boolean(),
});

export const StackListSchema = v.object({
  stacks: v.array(StackStateSchema),
  /** `unavailable`: the Docker Engine did not answer; every status reads `unknown`. */
  docker: v.picklist(['ok', 'unavailable']),
});

export const RemoveBody = v.strictObject({
  confirm: v.pipe(v.string(), v.maxLength(200)),
  removeData: v.optional(v.boolean()),
});

const intText = (max: number) =>
  v.pipe(v.string(), v.regex(/^[0-9]{1,9}$/, 'a whole number'), v.transform(Number), v.maxValue(max));

export const LogsQuery = v.strictObject({
  service: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/, 'a service name'))),
  tail: v.optional(intText(10_000)),
  /** Unix seconds. */
  since: v.optional(intText(4_102_444_800)),
  follow: v.optional(v.picklist(['0', '1', 'true', 'false'])),
});

export const LogLineSchema = v.object({
  time: v.string(),
  service: v.string(),
  container: v.string(),
  stream: v.picklist(['stdout', 'stderr']),
  text: v.string(),
});

export const UpdateBody = v.strictObject({
  /** Seconds the recreated services may take to be healthy before the rollback (default 120). */
  healthTimeoutSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(5), v.maxValue(3600))),
  /** Run the backup plan that holds the stack first (409 no_backup_plan when none does). */
  snapshot: v.optional(v.boolean()),
});

export const ValuesBody = v.strictObject({
  /** New values of the template's inputs (others keep theirs). */
  values: v.optional(v.record(v.string(), v.pipe(v.string(), v.maxLength(4096)))),
  /** Secret inputs to generate anew. */
  regenerate: v.optional(v.pipe(v.array(v.string()), v.maxLength(64))),
});

export const valuesResult = (job: v.GenericSchema) =>
  v.object({
    stack: StackSchema,
    plan: v.record(v.string(), v.unknown()),
    /** Inputs whose value changed (names only). */
    changed: v.array(v.string()),
    /** The restart of a running stack (a start job: compose up -d recreates what changed), or null. */
    restart: v.nullable(job),
  });
