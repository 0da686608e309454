/** `POST /config/export` (01 §2): streams an archive of the live installation. */
import { Readable } from 'node:stream';
import { checkExportBody } from '@appliance/archive-preview';
import { defineRoute } from '../../http/route.ts';

export function exportRoute(appVersion: () => string) {
  return defineRoute({
    method: 'POST',
    path: '/config/export',
    role: 'admin',
    summary: 'Export the configuration as a .tar.zst archive (streamed)',
    tags: ['config'],
    bodyKind: 'raw',
    responses: {
      200: {
        description: 'The config archive (01 §1), streamed without Content-Length',
        contentType: 'application/zstd',
      },
    },
    handler: async ({ ctx, actor, c }) => {
      // no body, or {}: anything else is 400 bad_request
      checkExportBody(await c.req.raw.text());
      const { exportDeps, exportGuard, startGuardedExport } = await import('./work.ts');
      // the stream outlives the handler: it holds the import lock until it ends (08 §14)
      const result = await startGuardedExport(exportDeps(ctx, appVersion()), exportGuard(ctx, actor));
      return new Response(Readable.toWeb(result.stream) as ReadableStream, {
        status: 200,
        headers: {
          'Content-Type': 'application/zstd',
          'Cache-Control': 'no-store',
          'Content-Disposition': `attachment; filename="${result.filename}"`,
        },
      });
    },
  });
}
