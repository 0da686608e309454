/** Builds multipart/form-data bodies for tests and the benchmark. */
import { randomBytes } from 'node:crypto';

export type Part =
  | { name: string; value: string }
  | { name: string; filename: string; data: Uint8Array; contentType?: string };

export function multipart(
  parts: readonly Part[],
  boundary = `----appliance${randomBytes(8).toString('hex')}`,
) {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head =
      'data' in p
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.contentType ?? 'application/zstd'}\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    chunks.push(Buffer.from(head, 'utf8'));
    chunks.push('data' in p ? Buffer.from(p.data) : Buffer.from(p.value, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The usual preview body: the archive, and a passphrase when given. */
export const previewBody = (archive: Uint8Array, passphrase?: string) =>
  multipart([
    { name: 'archive', filename: 'a.tar.zst', data: archive },
    ...(passphrase === undefined ? [] : [{ name: 'passphrase', value: passphrase }]),
  ]);

/** An import body: the archive, the confirmation, and optionally a passphrase and a diskMapping. */
export const importBody = (
  archive: Uint8Array,
  options: { confirmation?: string; passphrase?: string; diskMapping?: unknown } = {},
) =>
  multipart([
    { name: 'archive', filename: 'a.tar.zst', data: archive },
    ...(options.passphrase === undefined ? [] : [{ name: 'passphrase', value: options.passphrase }]),
    ...(options.confirmation === undefined ? [] : [{ name: 'confirmation', value: options.confirmation }]),
    ...(options.diskMapping === undefined
      ? []
      : [{ name: 'diskMapping', value: JSON.stringify(options.diskMapping) }]),
  ]);
