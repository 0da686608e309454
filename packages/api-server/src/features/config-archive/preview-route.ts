/**
 * `POST /config/import/preview` (01 §4): the multipart upload is streamed straight into the
 * archive reader (busboy on the raw body), into a private temp directory removed on every path.
 * Served on the Unix socket before an admin exists (`socketBeforeSetup`).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { LIMITS, archiveTooLarge } from '@appliance/archive-preview';
import { AppError } from '@appliance/common';
import { defineRoute, ok } from '../../http/route.ts';
import { PreviewSchema } from './schemas.ts';

const webBody = (raw: ReadableStream<Uint8Array> | null): Readable =>
  raw ? Readable.fromWeb(raw as import('node:stream/web').ReadableStream) : Readable.from([]);

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
  handler: async ({ ctx, c }) => {
    // The raw Node request when the Node adapter provides it: the upload never goes through a web
    // stream (touching `c.req.raw.body` would start one, and cost a copy per chunk).
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const headers = incoming?.headers ?? Object.fromEntries(c.req.raw.headers.entries());
    const body: Readable = incoming ?? webBody(c.req.raw.body);
    try {
      const { previewDeps, previewUpload } = await import('./work.ts');
      return ok(await previewUpload(previewDeps(ctx), headers, body));
    } catch (err) {
      // A failure found while the upload is still arriving is answered at once; the rest of the
      // body is not read, so the connection is closed after the answer.
      if (err instanceof AppError && !body.readableEnded) c.header('Connection', 'close');
      throw err;
    }
  },
});
