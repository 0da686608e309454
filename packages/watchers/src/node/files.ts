import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';

/** A generated file as it is now: its sha256 and (when it is text under the size limit) its text. */
export async function readGeneratedFile(
  file: string,
  maxContent = 256 * 1024,
): Promise<{ sha256: string; content: string | null } | 'missing'> {
  let data: Buffer;
  try {
    data = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  const text = data.length <= maxContent ? data.toString('utf8') : null;
  return {
    sha256: createHash('sha256').update(data).digest('hex'),
    content: text !== null && !text.includes('\u0000') && !text.includes('\uFFFD') ? text : null,
  };
}
