/**
 * The multipart upload of the preview and the import: the raw Node request when the Node adapter
 * provides it (the upload never goes through a web stream: touching `c.req.raw.body` would start
 * one, and cost a copy per chunk), else the web body.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { AppError } from '@appliance/common';
import type { Context } from 'hono';

export function rawUpload(c: Context): { headers: IncomingHttpHeaders; body: Readable } {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return { headers: incoming.headers, body: incoming };
  const raw = c.req.raw.body;
  return {
    headers: Object.fromEntries(c.req.raw.headers.entries()),
    body: raw ? Readable.fromWeb(raw as import('node:stream/web').ReadableStream) : Readable.from([]),
  };
}

/**
 * Runs `fn` on the upload. A refusal found while the upload is still arriving is answered at once;
 * the rest of the body is not read, so the connection is closed after the answer.
 */
export async function withUpload<T>(c: Context, fn: (upload: ReturnType<typeof rawUpload>) => Promise<T>) {
  const upload = rawUpload(c);
  try {
    return await fn(upload);
  } catch (err) {
    if (err instanceof AppError && !upload.body.readableEnded) c.header('Connection', 'close');
    throw err;
  }
}
