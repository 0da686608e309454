/** `POST /shares/:name/data/delete` (05): typed confirmation, dry run, the report, progress, audit. */
import { deleteShareData } from '@appliance/shares';
import { defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { dataDeletePorts } from './deps.ts';
import { DataDeleteBody, DataDeleteParams, DeleteReportSchema } from './schemas.ts';

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
  // an array job (parity sync, scrub, disk job) and a delete never run together (409 job_running)
  handler: async ({ ctx, actor, params, body }) =>
    ok(
      await deleteShareData(dataDeletePorts(ctx, actor), {
        name: params.name,
        confirmation: body.confirmation,
        dryRun: body.dryRun ?? false,
      }),
    ),
});
