/**
 * The synchronous tree deleter of one branch task (05 §5). Runs inside a worker thread (see
 * delete-worker.ts) and imports nothing but node builtins and the pure entry rules, so the worker
 * loads without the package resolver.
 *
 * Safety: every entry is addressed relative to an open directory handle and a name read from that
 * directory: with the native addon (@appliance/fs-at) through openat / fstatat / unlinkat on the
 * handle, otherwise (the pure-JS fallback) through `/proc/self/fd/<fd>/<name>` (the `*at` semantics
 * Node's fs lacks). Directories are opened with
 * O_NOFOLLOW | O_DIRECTORY and their st_dev checked, so a directory swapped for a symbolic link
 * (ELOOP), a mount inside the share (other_filesystem) or a renamed path component cannot redirect the
 * delete outside the branch. Memory: the stack of directories being visited and, per directory, the
 * names of its subdirectories still to visit; never a list of all paths.
 */
import fs from 'node:fs';
import type { FsAt } from '@appliance/fs-at';
import {
  HardLinkTally,
  OTHER_FILESYSTEM,
  branchStopStatus,
  bytesFreedBy,
  entryAction,
  errorName,
  isSafeEntryName,
  isVanished,
} from '../core/entry-rules.ts';

const OPEN_DIR = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
/** Directory handles kept open below the current one; shallower ones are re-opened through `..`. */
export const OPEN_WINDOW = 48;
/** Progress is flushed at most this often (ms); the server throttles further. */
const PROGRESS_EVERY_MS = 100;
const DOT_DOT = Buffer.from('..');
const NO_THROW = { throwIfNoEntry: false } as const;

export interface WalkBranch {
  /** Real path of the branch directory (root prefix applied). */
  realPath: string;
  /** Logical path, for failure reports. */
  logicalPath: string;
  disk: string;
  /** st_dev and st_ino of the branch directory as the pre-flight saw them. */
  dev: number;
  ino: number;
}

/**
 * - `tree`: delete everything below the task directory, then the directory itself when `removeSelf`;
 * - `split`: delete the task directory's non-directory entries and return its subdirectories, which
 *   the coordinator hands out as new tasks (parallelism inside one branch);
 * - `rmdir`: remove the (by now empty) task directory once its split children are done.
 */
export type WalkMode = 'tree' | 'split' | 'rmdir';

export interface WalkTask {
  id: number;
  branch: number;
  /** Names (bytes as latin1 strings) from the branch directory to the task directory; `[]` = the branch. */
  names: string[];
  mode: WalkMode;
  /** Remove the task directory once empty (never true for the branch directory itself). */
  removeSelf: boolean;
}

export interface WalkCounts {
  files: number;
  dirs: number;
  bytes: number;
}

export interface WalkFailure {
  disk: string;
  path: string;
  error: string;
}

export interface WalkResult {
  id: number;
  /** Something in the task could not be removed (or read), so its directory was kept. */
  blocked: boolean;
  /** `split` only: the subdirectories to hand out (latin1 strings). */
  subdirs: string[];
  /** Dry run only: `[ino, links seen, nlink, bytes]` of multi-link inodes. */
  tally: Array<[number, number, number, number]>;
  /** Set when the branch must stop: its filesystem is read-only or failing. */
  stop: 'read_only' | 'disk_error' | null;
}

export interface WalkEvents {
  progress(branch: number, counts: WalkCounts): void;
  failure(branch: number, failure: WalkFailure): void;
}

interface Frame {
  /** Open handle, or -1 while closed to bound open files. */
  fd: number;
  /** `/proc/self/fd/<fd>/` while open. */
  prefix: Buffer;
  dev: number;
  ino: number;
  /** Name inside the parent frame (latin1); '' for the first frame of a task. */
  name: string;
  /** Subdirectory names still to visit (latin1). */
  subdirs: string[];
  next: number;
  blocked: boolean;
  /** The branch directory handle, owned by the walker (never closed by a task). */
  shared: boolean;
}

type Opened = Frame | 'vanished' | 'failed';

class StopBranch extends Error {
  readonly status: 'read_only' | 'disk_error';
  constructor(status: 'read_only' | 'disk_error') {
    super(status);
    this.status = status;
  }
}

const bytesOf = (name: string): Buffer => Buffer.from(name, 'latin1');

/**
 * Runs the tasks of one delete operation, one at a time. `abort[branch] !== 0` (shared between the
 * worker threads) stops work on a branch another thread found read-only or failing.
 */
export class TreeWalker {
  private readonly branches: readonly WalkBranch[];
  private readonly dryRun: boolean;
  private readonly abort: Int32Array;
  private readonly events: WalkEvents;
  private readonly rootFds = new Map<number, number>();
  private readonly pending: WalkCounts[];
  private lastFlush = 0;
  private tally = new HardLinkTally();
  private chainVanished = false;
  /** The native `*at` calls (for `drain`), or null for the pure-JS walker. */
  private readonly at: FsAt | null;
  /** How entries are reached relative to an open directory: native `*at` calls or procfs paths. */
  private readonly ops: DirOps;

  constructor(
    branches: readonly WalkBranch[],
    dryRun: boolean,
    abort: Int32Array,
    events: WalkEvents,
    at: FsAt | null = null,
  ) {
    this.branches = branches;
    this.dryRun = dryRun;
    this.abort = abort;
    this.events = events;
    this.at = at;
    this.ops = at ? nativeOps(at) : PROC_OPS;
    this.pending = branches.map(() => ({ files: 0, dirs: 0, bytes: 0 }));
  }

  run(task: WalkTask): WalkResult {
    this.tally = new HardLinkTally();
    const result: WalkResult = { id: task.id, blocked: false, subdirs: [], tally: [], stop: null };
    const chain: Frame[] = [];
    try {
      if (Atomics.load(this.abort, task.branch) !== 0) result.blocked = true;
      else result.blocked = !this.runTask(task, chain, result);
    } catch (err) {
      if (!(err instanceof StopBranch)) throw err;
      Atomics.store(this.abort, task.branch, 1);
      result.stop = err.status;
      result.blocked = true;
    } finally {
      for (const f of chain) this.closeFrame(f);
    }
    this.flush(true);
    if (this.dryRun) result.tally = this.tally.toRows();
    return result;
  }

  /** Closes the branch directory handles. */
  close(): void {
    for (const fd of this.rootFds.values()) closeQuietly(fd);
    this.rootFds.clear();
  }

  private runTask(task: WalkTask, chain: Frame[], result: WalkResult): boolean {
    const { branch } = task;
    const target = task.mode === 'rmdir' ? task.names.slice(0, -1) : task.names;
    if (!this.openChain(branch, target, chain)) return this.chainVanished;
    const self = chain[chain.length - 1]!;
    const parent = chain[chain.length - 2];
    if (task.mode === 'rmdir') {
      const name = task.names.at(-1);
      return name === undefined || this.removeDir(branch, task.names, self, name);
    }
    if (task.mode === 'split') {
      this.readEntries(branch, [self], task.names);
      result.subdirs = self.subdirs;
      return !self.blocked;
    }
    if (!this.deleteBelow(branch, self, task.names)) return false;
    if (!task.removeSelf || parent === undefined) return true;
    this.closeFrame(self);
    return this.removeDir(branch, task.names, parent, task.names.at(-1)!);
  }

  // ── opening directories ──────────────────────────────────────────────────────────────────────

  /**
   * Opens the branch directory (once per walker, checked against the pre-flight's dev and inode) and
   * the task's path below it one component at a time. Keeps the last two handles (the task directory
   * and its parent) in `chain`.
   */
  private openChain(branch: number, names: string[], chain: Frame[]): boolean {
    this.chainVanished = false;
    const b = this.branch(branch);
    let rootFd = this.rootFds.get(branch);
    if (rootFd === undefined) {
      try {
        rootFd = fs.openSync(b.realPath, OPEN_DIR);
        const st = fs.fstatSync(rootFd);
        if (st.dev !== b.dev || st.ino !== b.ino) {
          closeQuietly(rootFd);
          throw errno('ESTALE', 'the branch directory was replaced after the pre-flight');
        }
      } catch (err) {
        this.fail(branch, [], err);
        return false;
      }
      this.rootFds.set(branch, rootFd);
    }
    chain.push({ ...frameOf(rootFd, b.dev, b.ino, ''), shared: true });
    for (let i = 0; i < names.length; i++) {
      const opened = this.openChild(branch, chain[chain.length - 1]!, names[i]!, names.slice(0, i + 1));
      if (typeof opened === 'string') {
        this.chainVanished = opened === 'vanished';
        return false;
      }
      if (chain.length === 2) this.closeFrame(chain.shift()!);
      chain.push(opened);
    }
    return true;
  }

  /** Opens subdirectory `name` of `parent` without following a link, only on the branch's filesystem. */
  private openChild(branch: number, parent: Frame, name: string, path: readonly string[]): Opened {
    const b = this.branch(branch);
    let fd: number;
    try {
      fd = this.ops.openDir(parent, name);
    } catch (err) {
      if (isVanished(errorName(err))) return 'vanished';
      this.fail(branch, path, this.swappedForLink(err, parent, name));
      return 'failed';
    }
    let st: fs.Stats;
    try {
      st = fs.fstatSync(fd);
    } catch (err) {
      this.closeFd(fd);
      this.fail(branch, path, err);
      return 'failed';
    }
    if (entryAction({ isDirectory: true, dev: st.dev }, b.dev) === 'other_filesystem') {
      this.closeFd(fd);
      this.fail(branch, path, errno(OTHER_FILESYSTEM, 'another filesystem is mounted here'));
      return 'failed';
    }
    return frameOf(fd, st.dev, st.ino, name);
  }

  /** Re-opens `frame` (closed to bound open files) as `<its child>/..`, verified by dev and inode. */
  private reopenAsParent(branch: number, frame: Frame, child: Frame, path: readonly string[]): boolean {
    try {
      const fd = this.ops.openParent(child);
      const st = fs.fstatSync(fd);
      if (st.dev !== frame.dev || st.ino !== frame.ino) {
        this.closeFd(fd);
        throw errno('ESTALE', 'the directory was moved during the delete');
      }
      setFd(frame, fd);
      return true;
    } catch (err) {
      this.fail(branch, path, err);
      return false;
    }
  }

  /** Re-opens a closed frame by walking down from the nearest open ancestor (after a failed `..`). */
  private reopenFromAbove(branch: number, stack: Frame[], base: readonly string[]): boolean {
    let i = stack.length - 1;
    while (i > 0 && stack[i]!.fd < 0) i -= 1;
    for (let j = i + 1; j < stack.length; j++) {
      const f = stack[j]!;
      const path = pathOf(base, stack, j);
      const opened = this.openChild(branch, stack[j - 1]!, f.name, path);
      if (typeof opened === 'string') return false;
      if (opened.dev !== f.dev || opened.ino !== f.ino) {
        this.closeFrame(opened);
        this.fail(branch, path, errno('ESTALE', 'the directory was moved during the delete'));
        return false;
      }
      setFd(f, opened.fd);
    }
    return true;
  }

  // ── the walk ─────────────────────────────────────────────────────────────────────────────────

  /**
   * Deletes everything below `top`, depth first and post-order (the files of a directory, then its
   * subdirectories, then the directory). Iterative. False when something below could not be removed.
   */
  private deleteBelow(branch: number, top: Frame, base: readonly string[]): boolean {
    const stack: Frame[] = [top];
    try {
      return this.walkStack(branch, stack, base);
    } finally {
      for (let i = 1; i < stack.length; i++) this.closeFrame(stack[i]!);
    }
  }

  private walkStack(branch: number, stack: Frame[], base: readonly string[]): boolean {
    this.readEntries(branch, stack, base);
    for (;;) {
      const frame = stack[stack.length - 1]!;
      if (frame.fd < 0 && !this.reopenFromAbove(branch, stack, base)) {
        // cannot come back into this directory: leave it (recorded) and keep its parents
        stack.pop();
        if (stack.length === 0) return false;
        stack[stack.length - 1]!.blocked = true;
        continue;
      }
      if (frame.next < frame.subdirs.length) {
        const name = frame.subdirs[frame.next]!;
        frame.subdirs[frame.next] = '';
        frame.next += 1;
        const child = this.openChild(branch, frame, name, [...pathOf(base, stack, stack.length - 1), name]);
        if (child === 'failed') frame.blocked = true;
        if (typeof child === 'string') continue;
        stack.push(child);
        const far = stack.length - 1 - OPEN_WINDOW;
        if (far > 0) this.closeFrame(stack[far]!);
        this.readEntries(branch, stack, base);
        continue;
      }
      // every child done: leave this directory and remove it from its parent
      stack.pop();
      frame.subdirs = [];
      if (stack.length === 0) return !frame.blocked;
      const parent = stack[stack.length - 1]!;
      const path = pathOf(base, stack, stack.length - 1).concat(frame.name);
      if (parent.fd < 0 && !this.reopenAsParent(branch, parent, frame, path.slice(0, -1))) {
        this.closeFrame(frame);
        parent.blocked = true;
        continue;
      }
      this.closeFrame(frame);
      if (frame.blocked || !this.removeDir(branch, path, parent, frame.name)) parent.blocked = true;
    }
  }

  /**
   * Streams the directory on top of `stack`: removes each non-directory entry as it is read (lstat
   * first, for the bytes; a link is removed as a link) and remembers its subdirectories.
   */
  private readEntries(branch: number, stack: Frame[], base: readonly string[]): void {
    if (this.at) {
      this.drainEntries(this.at, branch, stack, base);
      return;
    }
    const frame = stack[stack.length - 1]!;
    const here = (): string[] => pathOf(base, stack, stack.length - 1);
    let dir: fs.Dir;
    try {
      dir = fs.opendirSync(frame.prefix.toString('latin1'), {
        encoding: 'buffer' as BufferEncoding,
        bufferSize: 1024,
      });
    } catch (err) {
      frame.blocked = true;
      this.fail(branch, here(), err);
      return;
    }
    const counts = this.pending[branch]!;
    // one path buffer per directory: `/proc/self/fd/<fd>/` then the entry name (NAME_MAX is 255)
    const prefixLength = frame.prefix.length;
    const scratch = Buffer.allocUnsafe(prefixLength + 256);
    frame.prefix.copy(scratch, 0);
    let seen = 0;
    try {
      for (;;) {
        if ((++seen & 63) === 0 && Atomics.load(this.abort, branch) !== 0) {
          frame.blocked = true;
          return;
        }
        let entry: fs.Dirent | null;
        try {
          entry = dir.readSync();
        } catch (err) {
          frame.blocked = true;
          this.fail(branch, here(), err);
          return;
        }
        if (entry === null) return;
        const name = entry.name as unknown as Buffer;
        if (!isSafeEntryName(name) || name.length > 255) {
          frame.blocked = true;
          this.fail(branch, [...here(), name.toString('latin1')], errno('EINVAL', 'unusable name'));
          continue;
        }
        if (entry.isDirectory()) {
          frame.subdirs.push(name.toString('latin1'));
          continue;
        }
        name.copy(scratch, prefixLength);
        const path = scratch.subarray(0, prefixLength + name.length);
        let st: fs.Stats | undefined;
        try {
          st = fs.lstatSync(path, NO_THROW);
        } catch (err) {
          frame.blocked = true;
          this.fail(branch, [...here(), name.toString('latin1')], err);
          continue;
        }
        if (st === undefined) continue;
        // a directory that readdir did not type (DT_UNKNOWN) or that appeared meanwhile: visit it later
        // (entryAction: opening it checks the filesystem)
        if (st.isDirectory()) {
          frame.subdirs.push(name.toString('latin1'));
          continue;
        }
        if (this.dryRun) {
          if (st.nlink > 1) this.tally.see(st.ino, st.nlink, st.blocks);
          else counts.bytes += bytesFreedBy(st);
        } else {
          try {
            fs.unlinkSync(path);
          } catch (err) {
            if (isVanished(errorName(err))) continue;
            frame.blocked = true;
            this.fail(branch, [...here(), name.toString('latin1')], err);
            continue;
          }
          counts.bytes += bytesFreedBy(st);
        }
        counts.files += 1;
        if ((counts.files & 511) === 0) this.flush(false);
      }
    } finally {
      try {
        dir.closeSync();
      } catch {
        // the disk went away with the handle; nothing left to release
      }
    }
  }

  /**
   * readEntries with the native addon: each `drain` call reads one bounded getdents64 buffer of the
   * open directory and lstats (fstatat, no follow) and unlinks (unlinkat) its non-directory entries in
   * C, relative to the directory handle; subdirectories come back by name, to visit later.
   */
  private drainEntries(at: FsAt, branch: number, stack: Frame[], base: readonly string[]): void {
    const frame = stack[stack.length - 1]!;
    const here = (): string[] => pathOf(base, stack, stack.length - 1);
    const counts = this.pending[branch]!;
    for (let rewind = true; ; rewind = false) {
      if (Atomics.load(this.abort, branch) !== 0) {
        frame.blocked = true;
        return;
      }
      let done: boolean;
      let files: number;
      let bytes: number;
      let subdirs: string[];
      let failures: string[];
      let tally: number[];
      try {
        [done, files, bytes, subdirs, failures, tally] = at.drain(frame.fd, this.dryRun, rewind);
      } catch (err) {
        frame.blocked = true;
        this.fail(branch, here(), err);
        return;
      }
      counts.files += files;
      counts.bytes += bytes;
      for (const name of subdirs) frame.subdirs.push(name);
      for (let i = 0; i + 2 < tally.length; i += 3) this.tally.see(tally[i]!, tally[i + 1]!, tally[i + 2]!);
      for (let i = 0; i + 1 < failures.length; i += 2) {
        frame.blocked = true;
        this.fail(branch, [...here(), failures[i]!], errno(failures[i + 1]!, 'could not remove the entry'));
      }
      this.flush(false);
      if (done) return;
    }
  }

  /** Removes the empty directory `name` of `parent` (a dry run only counts it). */
  private removeDir(branch: number, path: readonly string[], parent: Frame, name: string): boolean {
    const counts = this.pending[branch]!;
    if (!this.dryRun) {
      try {
        this.ops.removeDir(parent, name);
      } catch (err) {
        if (isVanished(errorName(err))) return true;
        this.fail(branch, path, err);
        return false;
      }
    }
    counts.dirs += 1;
    return true;
  }

  // ── bookkeeping ──────────────────────────────────────────────────────────────────────────────

  /** Records a failure; a read-only or failing disk stops the whole branch. */
  private fail(branch: number, names: readonly string[], err: unknown): void {
    const b = this.branch(branch);
    const code = errorName(err);
    const path =
      names.length === 0
        ? b.logicalPath
        : `${b.logicalPath}/${names.map((n) => Buffer.from(n, 'latin1').toString('utf8')).join('/')}`;
    this.events.failure(branch, { disk: b.disk, path, error: code });
    const stop = branchStopStatus(code);
    if (stop) throw new StopBranch(stop);
  }

  /** Closes a handle this walker opened below the branch directory. */
  private closeFd(fd: number): void {
    try {
      this.ops.close(fd);
    } catch {
      // already closed, or the disk is gone
    }
  }

  private closeFrame(frame: Frame): void {
    if (frame.shared || frame.fd < 0) return;
    this.closeFd(frame.fd);
    frame.fd = -1;
  }

  /** O_DIRECTORY answers ENOTDIR before O_NOFOLLOW's ELOOP: a directory swapped for a link is ELOOP (05 §5). */
  private swappedForLink(err: unknown, parent: Frame, name: string): unknown {
    if (errorName(err) !== 'ENOTDIR') return err;
    let link: boolean;
    try {
      link = this.ops.isSymlink(parent, name);
    } catch {
      return err;
    }
    return link ? errno('ELOOP', 'the directory was replaced by a symbolic link') : err;
  }

  private flush(force: boolean): void {
    const now = performance.now();
    if (!force && now - this.lastFlush < PROGRESS_EVERY_MS) return;
    this.lastFlush = now;
    for (let i = 0; i < this.pending.length; i++) {
      const c = this.pending[i]!;
      if (c.files === 0 && c.dirs === 0 && c.bytes === 0) continue;
      this.events.progress(i, { ...c });
      c.files = 0;
      c.dirs = 0;
      c.bytes = 0;
    }
  }

  private branch(i: number): WalkBranch {
    const b = this.branches[i];
    if (!b) throw new Error(`no branch ${i}`);
    return b;
  }
}

/** The names from the branch directory to `stack[index]`. */
function pathOf(base: readonly string[], stack: readonly Frame[], index: number): string[] {
  const out = [...base];
  for (let i = 1; i <= index; i++) out.push(stack[i]!.name);
  return out;
}

function frameOf(fd: number, dev: number, ino: number, name: string): Frame {
  return { fd, prefix: procPrefix(fd), dev, ino, name, subdirs: [], next: 0, blocked: false, shared: false };
}

function setFd(frame: Frame, fd: number): void {
  frame.fd = fd;
  frame.prefix = procPrefix(fd);
}

const procPrefix = (fd: number): Buffer => Buffer.from(`/proc/self/fd/${fd}/`);
const procPath = (dir: Frame, name: string): Buffer => Buffer.concat([dir.prefix, bytesOf(name)]);

/**
 * The few calls on an entry relative to an open directory. Directory opens never follow a link
 * (O_NOFOLLOW | O_DIRECTORY); handles opened by the addon are closed by it (Node's fs warns in
 * worker threads about closing handles it did not open).
 */
interface DirOps {
  openDir(parent: Frame, name: string): number;
  /** `<child>/..`. */
  openParent(child: Frame): number;
  removeDir(parent: Frame, name: string): void;
  /** lstat without following: is the entry a symbolic link? */
  isSymlink(parent: Frame, name: string): boolean;
  close(fd: number): void;
}

/** The pure-JS fallback: `/proc/self/fd/<fd>/<name>` paths. */
const PROC_OPS: DirOps = {
  openDir: (parent, name) => fs.openSync(procPath(parent, name), OPEN_DIR),
  openParent: (child) => fs.openSync(Buffer.concat([child.prefix, DOT_DOT]), OPEN_DIR),
  removeDir: (parent, name) => fs.rmdirSync(procPath(parent, name)),
  isSymlink: (parent, name) => fs.lstatSync(procPath(parent, name), NO_THROW)?.isSymbolicLink() === true,
  close: (fd) => fs.closeSync(fd),
};

/** The native addon: openat / unlinkat / fstatat on the handle. */
const nativeOps = (at: FsAt): DirOps => ({
  openDir: (parent, name) => at.openDirAt(parent.fd, bytesOf(name)),
  openParent: (child) => at.openParent(child.fd),
  removeDir: (parent, name) => at.unlinkAt(parent.fd, bytesOf(name), true),
  isSymlink: (parent, name) =>
    ((at.lstatAt(parent.fd, bytesOf(name))?.[0] ?? 0) & fs.constants.S_IFMT) === fs.constants.S_IFLNK,
  close: (fd) => at.close(fd),
});

const errno = (code: string, message: string): Error => Object.assign(new Error(message), { code });

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed, or the disk is gone
  }
}
