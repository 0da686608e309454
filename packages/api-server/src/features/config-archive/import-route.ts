/**
 * `POST /config/import` (08 §14): the preview's multipart upload plus `confirmation` and, on a
 * fresh install, `diskMapping`; the same reading and decisions as the preview, then the steps
 * under the import lock. Served on the Unix socket before an admin exists (`socketBeforeSetup`).
 * The route manages the import lock itself (`gate: 'self'`); every other write meanwhile answers
 * `409 import_in_progress` (http/app.ts).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { archiveTooLarge, LIMITS } from '@appliance/archive-preview';
import { AppError } from '@appliance/common';
import { defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { ImportSchema } from './schemas.ts';

const webBody = (raw: ReadableStream<Uint8Array> | null): Readable =>
  raw ? Readable.fromWeb(raw as import('node:stream/web').ReadableStream) : Readable.from([]);

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
    handler: async ({ ctx, actor, c }) => {
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      const headers = incoming?.headers ?? Object.fromEntries(c.req.raw.headers.entries());
      const body: Readable = incoming ?? webBody(c.req.raw.body);
      const operationId = ctx.random.uuid();
      try {
        const { importDeps, importUploadWithProgress } = await import('./work.ts');
        const result = await importUploadWithProgress(
          importDeps(ctx, { actor, appVersion: appVersion(), onAccountsReplaced }),
          headers,
          body,
          ({ target, done, progress }) =>
            ctx.events.publish({
              type: 'progress',
              data: { operationId, operation: 'config.import', target, done, progress },
            }),
        );
        return ok(result);
      } catch (err) {
        // the rest of an upload refused while arriving is not read: the connection closes after
        if (err instanceof AppError && !body.readableEnded) c.header('Connection', 'close');
        throw err;
      }
    },
  });
}
