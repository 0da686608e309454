/**
 * The native `*at` system calls of the share data deleter (spec 05 §5), built by `pnpm build`
 * (scripts/build-native.ts) to dist/fs_at.node. Every call works relative to an open directory handle,
 * never follows a symbolic link and refuses entry names that are empty, `.`, `..` or contain `/` or NUL.
 * Errors are thrown as `Error`s with `code` = the errno name, like Node's fs.
 *
 * Loading is optional: `fsAtAddonPath()` is null when the addon was not built or does not load here,
 * and the deleter then uses its pure-JS walker.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export interface FsAt {
  /** openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) → fd. */
  openDirAt(dirfd: number, name: Buffer): number;
  /** openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) → fd. */
  openParent(dirfd: number): number;
  /**
   * close(fd) of a handle opened here. (Node's fs.closeSync warns about handles it did not open when
   * called in a worker thread.)
   */
  close(fd: number): void;
  /** unlinkat(dirfd, name, isDir ? AT_REMOVEDIR : 0). */
  unlinkAt(dirfd: number, name: Buffer, isDir: boolean): void;
  /** fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW) → [mode, dev, ino, nlink, blocks]; null for ENOENT. */
  lstatAt(dirfd: number, name: Buffer): [number, number, number, number, number] | null;
  /**
   * One getdents64 buffer (32 KiB) of directory `dirfd` (from its start when `rewind`): directories
   * are listed in `subdirs` (latin1 names); every other entry is `fstatat`ed (no follow) and, unless
   * `dryRun`, unlinked. Returns `[done, files, bytes, subdirs, failures, tally]`: `failures` is flat
   * `[name, errno name, …]`, `tally` (dry run) flat `[ino, nlink, blocks, …]` of multi-link inodes;
   * `bytes` sums st_blocks × 512 of removed entries whose link count was 1. A read-only or failing
   * disk error (EROFS, EIO, …) ends the call with `done`.
   */
  drain(dirfd: number, dryRun: boolean, rewind: boolean): DrainResult;
  /**
   * On the thread pool, as one job: create `file` (O_EXCL, no symlink followed, mode 0644 whatever
   * the umask), write `data`, fsync, close; then, when `renameTo` is given, rename `file` over it and
   * fsync `renameTo`'s directory. Rejects with `code` = the errno name and `syscall`. The caller
   * removes `file` after a failure (it may exist).
   */
  writeFileDurable(file: string, data: Buffer, renameTo: string | null): Promise<void>;
  /** On the thread pool: rename `from` over `to`, then fsync `to`'s directory. */
  renameDurable(from: string, to: string): Promise<void>;
}

export type DrainResult = [boolean, number, number, string[], string[], number[]];

/** dist/fs_at.node, from src/ (sources) and dist/ (built) alike. */
const ADDON = fileURLToPath(new URL('../dist/fs_at.node', import.meta.url));

/** Loads the addon at `file` (usable in any thread: the addon is context aware). */
export function loadFsAt(file: string): FsAt {
  const module = { exports: {} as FsAt };
  process.dlopen(module, file, os.constants.dlopen.RTLD_NOW);
  return module.exports;
}

let probed: string | null | undefined;

/** The addon's path when it is built and loads on this host; otherwise null (once per process). */
export function fsAtAddonPath(): string | null {
  if (probed !== undefined) return probed;
  probed = null;
  if (process.platform === 'linux' && fs.existsSync(ADDON)) {
    try {
      const at = loadFsAt(ADDON);
      if (typeof at.drain === 'function') probed = ADDON;
    } catch {
      // built for another Node or libc: the pure-JS walker is used
    }
  }
  return probed;
}
