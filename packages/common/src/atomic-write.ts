import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const fsync = promisify(fsSync.fsync);

export interface AtomicWriteOptions {
  mode?: number;
  /** Refuse to replace an existing file (the rename becomes a link + unlink). */
  exclusive?: boolean;
}

/** The temp file name of `writeFileAtomic` for `file`: `.<basename>.<12 hex>.tmp`, beside it. */
const tempName = (file: string) => `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`;

/**
 * Whether `name` (a directory entry) is a temp file `writeFileAtomic` made for a file called
 * `basename`. Only a crash between its creation and the rename leaves one behind; startup
 * recovery uses this to remove them (issue 9 crash tests).
 */
export function isAtomicWriteTemp(name: string, basename: string): boolean {
  const prefix = `.${basename}.`;
  return name.startsWith(prefix) && /^[0-9a-f]{12}\.tmp$/.test(name.slice(prefix.length));
}

/** Write a file atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, tempName(file));
  const handle = await fs.open(tmp, 'wx', options.mode ?? 0o644);
  try {
    await handle.writeFile(data);
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.sync();
  } catch (err) {
    // A failed write (ENOSPC, EIO …) must not leave its temp file behind.
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    if (options.exclusive) {
      await fs.link(tmp, file);
      await fs.unlink(tmp);
    } else {
      await fs.rename(tmp, file);
    }
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
}

export async function fsyncDir(dir: string): Promise<void> {
  // open and close are microseconds on a directory: only the fsync goes to the thread pool
  const fd = fsSync.openSync(dir, 'r');
  try {
    await fsync(fd);
  } finally {
    fsSync.closeSync(fd);
  }
}
