/**
 * The preview's multipart upload (01 §4.2), parsed as it streams with busboy on the raw request:
 * `archive` (file, exactly one) and `passphrase` (text, at most one). Parts are validated as they
 * arrive; the first failure answers at once, without reading the rest of the body.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { type Readable, Transform } from 'node:stream';
import { AppError, badRequest, clientDisconnected, onFirstUse } from '@appliance/common';
import type busboyType from 'busboy';
import { archiveTooLarge } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';

/** busboy is loaded on the first upload, not at the service's start (docs/decisions/performance.md). */
const busboy = onFirstUse(() => createRequire(import.meta.url)('busboy') as typeof busboyType);

export interface Upload<T> {
  result: T;
  passphrase: string | undefined;
  /** The extra text parts the caller allowed (the import's `confirmation`, `diskMapping`), as sent. */
  fields: Record<string, string>;
}

export interface UploadOptions {
  /** Text parts allowed beside `archive` and `passphrase`, each at most once (≤ 64 KiB each). */
  fields?: readonly string[];
}

/** Largest extra text part (a 512-entry `diskMapping` is ~40 KiB of JSON). */
const EXTRA_FIELD_BYTES = 64 * 1024;

const issue = (path: string, message: string): AppError => badRequest([{ path, message }]);

/** §4.4 step 1: a declared Content-Length over the body limit is refused before reading. */
export function checkContentLength(headers: IncomingHttpHeaders): void {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > LIMITS.bodyBytes) {
    throw archiveTooLarge('the request body', LIMITS.bodyBytes);
  }
}

/**
 * Streams the upload: `onArchive` receives the `archive` part's bytes as they arrive and must
 * consume them. Resolves with its result and the passphrase once the body is fully read; rejects
 * with the first failure (after `onArchive` settled, so its temp files are gone).
 */
export function receiveUpload<T>(
  headers: IncomingHttpHeaders,
  body: Readable,
  onArchive: (archive: Readable) => Promise<T>,
  options: UploadOptions = {},
): Promise<Upload<T>> {
  const extra = options.fields ?? [];
  const allowed = ['archive', 'passphrase', ...extra].map((n) => `"${n}"`).join(', ');
  return new Promise<Upload<T>>((resolve, reject) => {
    let failed = false;
    let archive: Readable | null = null;
    let archivePromise: Promise<T> | null = null;
    let passphrase: string | undefined;
    let passphraseSeen = false;
    const fields: Record<string, string> = {};
    let bodyDone = false;

    let bb: busboyType.Busboy;
    try {
      checkContentLength(headers);
      bb = busboy()({
        headers,
        limits: {
          fieldSize: (extra.length > 0 ? EXTRA_FIELD_BYTES : 4096) + 1,
          fieldNameSize: 256,
          fields: 16,
          files: 16,
          parts: 32,
        },
      });
    } catch (err) {
      if (err instanceof AppError) return reject(err);
      return reject(
        issue(
          '',
          'The body must be multipart/form-data with a boundary, carrying the archive as the part "archive".',
        ),
      );
    }

    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      body.unpipe(counter);
      counter.unpipe(bb);
      body.pause();
      const settle = () => reject(err);
      if (archive && !archive.destroyed) archive.destroy(err instanceof Error ? err : new Error(String(err)));
      if (archivePromise) archivePromise.then(settle, settle);
      else settle();
    };

    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        received += chunk.length;
        if (received > LIMITS.bodyBytes) {
          fail(archiveTooLarge('the request body', LIMITS.bodyBytes));
          return cb();
        }
        cb(null, chunk);
      },
    });

    bb.on('file', (name, stream) => {
      if (failed) return stream.resume();
      if (name !== 'archive') {
        stream.resume();
        return fail(
          issue(
            name,
            name === 'passphrase' || extra.includes(name)
              ? `The part "${name}" must be sent as a text field, not a file.`
              : `Unknown part "${name}": send only ${allowed}.`,
          ),
        );
      }
      if (archivePromise) {
        stream.resume();
        return fail(issue('archive', 'Send the archive exactly once.'));
      }
      archive = stream;
      archivePromise = onArchive(stream);
      archivePromise.catch(fail);
    });

    bb.on('field', (name, value, info) => {
      if (failed) return;
      if (name === 'archive') return fail(issue('archive', 'The archive must be sent as a file part.'));
      if (extra.includes(name)) {
        if (name in fields) return fail(issue(name, `Send "${name}" at most once.`));
        if (info.valueTruncated || Buffer.byteLength(value, 'utf8') > EXTRA_FIELD_BYTES)
          return fail(issue(name, `"${name}" must be at most ${EXTRA_FIELD_BYTES} bytes.`));
        fields[name] = value;
        return;
      }
      if (name !== 'passphrase') return fail(issue(name, `Unknown part "${name}": send only ${allowed}.`));
      if (passphraseSeen) return fail(issue('passphrase', 'Send the passphrase at most once.'));
      passphraseSeen = true;
      if (info.valueTruncated || Buffer.byteLength(value, 'utf8') > 4096) {
        return fail(issue('passphrase', 'The passphrase must be at most 4096 bytes of UTF-8.'));
      }
      if (value.length < 1 || value.length > 1024) {
        return fail(issue('passphrase', 'The passphrase must be 1 to 1024 characters long.'));
      }
      passphrase = value;
    });

    bb.on('partsLimit', () => fail(issue('', `Too many parts: send only ${allowed}.`)));
    bb.on('filesLimit', () => fail(issue('', 'Too many files: send the archive exactly once.')));
    bb.on('fieldsLimit', () => fail(issue('', 'Too many text parts.')));
    bb.on('error', () => fail(issue('', 'The multipart body is malformed or incomplete.')));
    bb.on('close', () => {
      if (failed) return;
      if (!archivePromise)
        return fail(issue('archive', 'The part "archive" (the .tar.zst file) is required.'));
      archivePromise.then((result) => {
        if (!failed) resolve({ result, passphrase, fields });
      }, fail);
    });

    body.on('end', () => {
      bodyDone = true;
    });
    // A request that errors or closes before its end is a client that went away mid-upload.
    body.on('error', (err) => fail(bodyDone ? err : clientDisconnected()));
    body.on('close', () => {
      if (!bodyDone && !failed) fail(clientDisconnected());
    });
    body.pipe(counter).pipe(bb);
  });
}
