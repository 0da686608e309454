import * as v from 'valibot';
import { JOB_STATES } from '../../db/schema.ts';
import { ErrorBody, PageLimit, Uuid } from '../../http/schemas.ts';

/** A failed job's error: the shape of an error answer. */
export const JobErrorSchema = ErrorBody;

/** A job (09): what runs, where it is, what it did. */
export const JobSchema = v.object({
  id: v.string(),
  type: v.pipe(v.string(), v.description('parity.sync, parity.scrub, disk.upgrade, …')),
  target: v.string(),
  state: v.picklist(JOB_STATES),
  phase: v.nullable(v.string()),
  percent: v.nullable(v.number()),
  bytesDone: v.nullable(v.number()),
  bytesTotal: v.nullable(v.number()),
  etaSeconds: v.nullable(v.number()),
  cancellable: v.pipe(v.boolean(), v.description('Whether DELETE /jobs/:id may stop it now')),
  trigger: v.picklist(['request', 'schedule']),
  actor: v.string(),
  params: v.record(v.string(), v.unknown()),
  result: v.unknown(),
  error: v.nullable(JobErrorSchema),
  output: v.pipe(v.array(v.string()), v.description("The last lines of the tool's output")),
  createdAt: v.string(),
  startedAt: v.nullable(v.string()),
  endedAt: v.nullable(v.string()),
});

/** The 202 answer of a route that starts a job (`accepted()`): `what` is e.g. `The sync job`. */
export const jobAccepted = (what: string) => ({
  description: `${what} (Location: /api/v1/jobs/<id>)`,
  schema: JobSchema,
});

export const JobListSchema = v.object({ jobs: v.array(JobSchema), nextBefore: v.nullable(v.string()) });

export const JobParams = v.strictObject({ id: Uuid });

export const JobListQuery = v.strictObject({
  limit: PageLimit('50'),
  before: v.optional(Uuid),
  type: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be a job type such as parity.sync')),
  ),
  state: v.optional(v.picklist(JOB_STATES, `must be one of ${JOB_STATES.join(', ')}`)),
});
