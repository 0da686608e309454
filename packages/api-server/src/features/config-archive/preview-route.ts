/**
 * `POST /config/import/preview` (01 §4): the multipart upload is streamed straight into the
 * archive reader (busboy on the raw body), into a private temp directory removed on every path.
 * Served on the Unix socket before an admin exists (`socketBeforeSetup`).
 */
import { LIMITS, archiveTooLarge } from '@appliance/archive-preview';
import { defineRoute, ok } from '../../http/route.ts';
import { PreviewSchema } from './schemas.ts';
import { withUpload } from './upload.ts';

export const previewRoute = defineRoute({
  method: 'POST',
  path: '/config/import/preview',
  role: 'admin',
  summary: 'Preview what importing a config archive would refuse, add, change and remove (writes nothing)',
  tags: ['config'],
  bodyKind: 'raw',
  // a declared oversize upload is refused before the credential (00-conventions: order of checks)
  bodyLimit: LIMITS.bodyBytes,
  tooLarge: () => archiveTooLarge('the request body', LIMITS.bodyBytes),
  socketBeforeSetup: true,
  responses: {
    200: { description: 'What the import would do', schema: PreviewSchema },
  },
  handler: ({ ctx, c }) =>
    withUpload(c, async ({ headers, body }) => {
      const { previewDeps, previewUpload } = await import('./work.ts');
      return ok(await previewUpload(previewDeps(ctx), headers, body));
    }),
});
