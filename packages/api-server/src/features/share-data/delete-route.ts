/** `POST /shares/:name/data/delete` (05): typed confirmation, dry run, the report, progress, audit. */
import {
  auditOutcome,
  checkDataDeleteConfirmation,
  incompleteError,
  runShareDataDelete,
} from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import { ErrorBody } from '../../http/schemas.ts';
import type { Actor } from '../../services/audit.ts';
import { defineRoute, ok } from '../../http/route.ts';
import { whileShareDataDelete } from './busy.ts';
import { DataDeleteBody, DataDeleteParams, DeleteReportSchema } from './schemas.ts';
import { loadArray, loadShare } from './store.ts';

export const deleteRoute = defineRoute({
  method: 'POST',
  path: '/shares/:name/data/delete',
  role: 'admin',
  summary: "Delete a share's files on every disk that holds it (the share itself stays)",
  tags: ['shares'],
  params: DataDeleteParams,
  body: DataDeleteBody,
  responses: {
    200: {
      description: 'The delete report (what was, or in a dry run would be, deleted)',
      schema: DeleteReportSchema,
    },
    409: {
      description:
        'confirmation_required, share_busy, migration_in_progress, no_array, disk_not_mounted, share_branch_not_directory, job_running (an array job such as a parity sync runs)',
      schema: ErrorBody,
    },
    500: {
      description:
        'share_data_delete_incomplete: some entries could not be deleted; details.report and details.failures',
      schema: ErrorBody,
    },
  },
  handler: async ({ ctx, actor, params, body }) => {
    const { name } = params;
    const dryRun = body.dryRun ?? false;
    // step 8 before any lookup: a wrong confirmation on an unknown share answers 409
    checkDataDeleteConfirmation(name, body.confirmation);
    // an array job (parity sync, scrub, disk job) and a delete never run together (409 job_running);
    // deletes share the hold, so deletes of different shares run at once and a second delete of
    // the same share reaches step 12 (409 share_busy)
    const release = dryRun
      ? () => undefined
      : ctx.jobs.hold(['array'], { type: 'share_data.delete', target: name, mode: 'shared' });
    try {
      return await deleteShareData(ctx, actor, name, dryRun, body.confirmation);
    } finally {
      release();
    }
  },
});

async function deleteShareData(
  ctx: AppContext,
  actor: Actor | null,
  name: string,
  dryRun: boolean,
  confirmation: string | null | undefined,
) {
  const progress = ctx.events.progress(ctx.random.uuid(), 'share_data.delete', name);
  const outcome = await runShareDataDelete(
    { name, confirmation, dryRun },
    {
      paths: ctx.paths,
      runner: ctx.runner,
      plainDirectories: ctx.paths.root !== '' && !ctx.config.lab.enabled,
      loadShare: (n) => loadShare(ctx.db, n),
      loadArray: () => loadArray(ctx.db),
      whileNotBusy: (n, fn) => whileShareDataDelete(ctx, n, fn),
      onProgress: (p) => progress.update({ ...p.totals }),
    },
  );
  progress.finish({ ...outcome.report.totals });
  if (!dryRun) {
    await ctx.writes.run((db) =>
      ctx.audit.record(db, actor, {
        operation: 'share_data.delete',
        target: name,
        outcome: auditOutcome(outcome),
        // 05 §5: details = totals (a partial run also records how many entries failed)
        details:
          outcome.failureCount === 0
            ? { ...outcome.report.totals }
            : { ...outcome.report.totals, failureCount: outcome.failureCount },
      }),
    );
  }
  const incomplete = incompleteError(outcome);
  if (incomplete) throw incomplete;
  return ok(outcome.report);
}
