/**
 * `POST /config/import` (08 §14): the preview's multipart upload plus `confirmation` and, on a
 * fresh install, `diskMapping`; the same reading and decisions as the preview, then the steps
 * under the import lock. Served on the Unix socket before an admin exists (`socketBeforeSetup`).
 * The route manages the import lock itself (`gate: 'self'`); every other write meanwhile answers
 * `409 import_in_progress` (http/app.ts).
 */
import { archiveTooLarge, LIMITS } from '@appliance/archive-preview';
import { defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { ImportSchema } from './schemas.ts';
import { withUpload } from './upload.ts';

export function importRoute(appVersion: () => string, onAccountsReplaced: () => void) {
  return defineRoute({
    method: 'POST',
    path: '/config/import',
    role: 'admin',
    summary: "Replace this installation's configuration with a config archive's (typed confirmation)",
    tags: ['config'],
    bodyKind: 'raw',
    bodyLimit: LIMITS.bodyBytes,
    tooLarge: () => archiveTooLarge('the request body', LIMITS.bodyBytes),
    socketBeforeSetup: true,
    gate: 'self',
    responses: {
      200: { description: 'The configuration was replaced', schema: ImportSchema },
      400: {
        description:
          'bad_request (multipart parts, diskMapping), invalid_archive, backup_passphrase_incorrect, incompatible_archive',
        schema: ErrorBody,
      },
      409: {
        description:
          'archive_newer_version, archive_other_installation, archive_array_mismatch, restore_path_unsafe, confirmation_required (the confirmation part missing, empty or wrong; details.expected), disk_mapping_invalid (details.entry), operations_running, import_in_progress',
        schema: ErrorBody,
      },
      413: { description: 'archive_too_large', schema: ErrorBody },
      500: {
        description: 'import_failed (details.step): everything was put back, the box is as before',
        schema: ErrorBody,
      },
    },
    handler: ({ ctx, actor, c }) =>
      withUpload(c, async ({ headers, body }) => {
        const operationId = ctx.random.uuid();
        const { importDeps, importUploadWithProgress } = await import('./work.ts');
        const deps = importDeps(ctx, { actor, appVersion: appVersion(), onAccountsReplaced });
        return ok(
          await importUploadWithProgress(deps, headers, body, ({ target, done, progress }) =>
            ctx.events.publish({
              type: 'progress',
              data: { operationId, operation: 'config.import', target, done, progress },
            }),
          ),
        );
      }),
  });
}
