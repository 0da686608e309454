/**
 * The import's input and busy refusals (08 §14): the `diskMapping` part of the upload, and the
 * answer when the import lock is taken (`job_running` naming a running job, else
 * `operations_running`).
 */
import { type AppError, badRequest, conflict } from '@appliance/common';
import { jobRunning } from '@appliance/jobs';
import * as v from 'valibot';
import type { DiskMappingEntry } from '../core/bare-metal.ts';
import { MAX_MAPPING_ENTRIES } from '../core/import-plan.ts';

const MappingSchema = v.strictObject({
  disks: v.pipe(
    v.array(
      v.strictObject({
        role: v.picklist(['parity', 'data', 'cache']),
        roleIndex: v.pipe(v.number(), v.integer(), v.minValue(1)),
        device: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
      }),
    ),
    v.maxLength(MAX_MAPPING_ENTRIES),
  ),
});

/** The `diskMapping` part: JSON `{"disks": [{role, roleIndex, device}]}` (≤ 512 entries). */
export function parseDiskMapping(text: string | undefined): DiskMappingEntry[] | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest([{ path: 'diskMapping', message: 'diskMapping is not valid JSON' }]);
  }
  const r = v.safeParse(MappingSchema, json);
  if (!r.success) {
    throw badRequest(
      r.issues.slice(0, 20).map((i) => ({
        path: `diskMapping${v.getDotPath(i) ? `.${v.getDotPath(i)}` : ''}`,
        message: i.message,
      })),
    );
  }
  return r.output.disks;
}

export const operationsRunning = (): AppError =>
  conflict(
    'operations_running',
    'Another change or long operation is running; wait until it has finished, then import again.',
  );

/** A job as the import's busy refusal names it. */
export interface RunningJob {
  id: string;
  type: string;
  target: string;
  cancellable: boolean;
}

/** The import lock is taken: `job_running` naming a running job, else `operations_running`. */
export const importBusy = (job: RunningJob | null): AppError =>
  job
    ? jobRunning({
        type: job.type,
        title: `the ${job.type} job`,
        target: job.target,
        jobId: job.id,
        cancellable: job.cancellable,
      })
    : operationsRunning();
