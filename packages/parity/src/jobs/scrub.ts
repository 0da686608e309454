/** The `parity.scrub` job: the whole array present → `snapraid scrub` → status; an event on errors. */
import type { JobImplementation } from '@appliance/jobs';
import * as parityEvents from '../core/messages.ts';
import type { ParityJobDeps } from '../ports.ts';
import type { ScrubParams, ScrubResult } from './kinds.ts';
import { failed, handlers, raise, recordStatus, requireWholeArray, snapraidOf } from './steps.ts';

export function scrubImplementation(deps: ParityJobDeps): JobImplementation<ScrubParams, ScrubResult> {
  return {
    async run(job, params) {
      await requireWholeArray(deps, job, 'parity scrub');
      job.phase('scrub', { cancellable: true });
      const { run, findings } = await snapraidOf(deps).scrub(params, handlers(job));
      if (run.cancelled) return null;
      const failure = failed(run, 'scrub_failed', 'scrub');
      if (failure) throw failure;
      job.completed(); // the scrub is done: a cancel from here on is too late
      await recordStatus(deps, job);
      return {
        percent: params.percent,
        olderThanDays: params.olderThanDays,
        bytes: run.progress?.bytesDone ?? 0,
        dataErrors: findings.dataErrors,
        ioErrors: findings.ioErrors,
        fileErrors: findings.fileErrors,
        files: findings.files,
      };
    },
    async after(view) {
      const r = view.result;
      if (view.state !== 'succeeded' || !r) return;
      if (r.dataErrors + r.ioErrors + r.fileErrors > 0) await raise(deps, parityEvents.scrubErrors(r));
    },
  };
}
