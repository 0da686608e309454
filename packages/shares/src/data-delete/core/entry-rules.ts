/**
 * Per-entry decisions of the tree deleter (05 §5), pure so the walker (which runs in a worker thread
 * and imports nothing but this file and node builtins) and the unit tests share them.
 */

/** Errors after which the rest of a branch is not attempted: the disk itself is the problem. */
const READ_ONLY = new Set(['EROFS']);
const DISK_GONE = new Set(['EIO', 'ENODEV', 'ENXIO', 'ENOTCONN', 'ESHUTDOWN', 'EUCLEAN', 'ESTALE']);

/** `read_only` / `disk_error` when an error means the whole branch cannot go on, else `null`. */
export function branchStopStatus(code: string): 'read_only' | 'disk_error' | null {
  if (READ_ONLY.has(code)) return 'read_only';
  if (DISK_GONE.has(code)) return 'disk_error';
  return null;
}

/** Errors that mean "it is already gone": ignored and not counted (05 §5). */
export const isVanished = (code: string): boolean => code === 'ENOENT';

/** Recorded for a directory on another filesystem inside the share (neither entered nor removed). */
export const OTHER_FILESYSTEM = 'other_filesystem';

/**
 * The error name recorded for an entry: the errno name, `other_filesystem`, or `EUNKNOWN` for anything
 * without one.
 */
export function errorName(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === OTHER_FILESYSTEM) return code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : 'EUNKNOWN';
}

/**
 * A directory entry name as read from the disk may be used to build a path below its directory:
 * never empty, `.` or `..`, never containing `/` or NUL. (readdir never returns such names; this is
 * the guarantee that every path the deleter touches stays below the branch.)
 */
export function isSafeEntryName(name: Uint8Array): boolean {
  if (name.length === 0 || name.includes(0x2f) || name.includes(0)) return false;
  if (name.length === 1 && name[0] === 0x2e) return false;
  if (name.length === 2 && name[0] === 0x2e && name[1] === 0x2e) return false;
  return true;
}

/** What to do with an entry found below a branch, from its `lstat` (or `fstat` once opened). */
export type EntryAction = 'unlink' | 'descend' | 'other_filesystem';

export function entryAction(entry: { isDirectory: boolean; dev: number }, branchDev: number): EntryAction {
  if (!entry.isDirectory) return 'unlink';
  return entry.dev === branchDev ? 'descend' : 'other_filesystem';
}

/** Bytes a removed non-directory frees (05 §3): its blocks, unless another hard link keeps the data. */
export const bytesFreedBy = (st: { nlink: number; blocks: number }): number =>
  st.nlink === 1 ? st.blocks * 512 : 0;

/**
 * The dry run's stand-in for "link count was 1 when removed": a file with n hard links inside the
 * share frees its blocks when the last of them is removed. Counts how many links of each multi-link
 * inode were seen; the blocks count once all its links were seen.
 */
export class HardLinkTally {
  private readonly seen = new Map<number, { count: number; nlink: number; bytes: number }>();

  /** Records one link of an inode with `nlink > 1`. */
  see(ino: number, nlink: number, blocks: number): void {
    const entry = this.seen.get(ino);
    if (entry) entry.count += 1;
    else this.seen.set(ino, { count: 1, nlink, bytes: blocks * 512 });
  }

  /** Plain rows for a message between threads. */
  toRows(): Array<[number, number, number, number]> {
    return [...this.seen].map(([ino, e]) => [ino, e.count, e.nlink, e.bytes]);
  }

  addRows(rows: ReadonlyArray<readonly [number, number, number, number]>): void {
    for (const [ino, count, nlink, bytes] of rows) {
      const entry = this.seen.get(ino);
      if (entry) entry.count += count;
      else this.seen.set(ino, { count, nlink, bytes });
    }
  }

  /** Bytes of the inodes whose every link was seen. */
  bytesFreed(): number {
    let sum = 0;
    for (const e of this.seen.values()) if (e.count >= e.nlink) sum += e.bytes;
    return sum;
  }
}
