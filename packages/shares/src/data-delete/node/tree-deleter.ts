/**
 * The per-branch tree deleter (05 §5): deletes (or, in a dry run, walks) every present branch of a
 * share directly on its disk, branches in parallel on worker threads, and splits a branch's top
 * directories between threads when there are more threads than work.
 *
 * The coordinator only schedules: each worker runs whole tasks (walk.ts). A task is a subtree; a
 * `split` task deletes one directory's files and hands its subdirectories back as new tasks, and the
 * directory itself is removed by an `rmdir` task once they are all done (post-order is kept).
 */
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { HostPaths } from '@appliance/common';
import { fsAtAddonPath } from '@appliance/fs-at';
import { isBranchPath } from '../core/branches.ts';
import { HardLinkTally } from '../core/entry-rules.ts';
import type { DeleteCounts, DeleteFailure } from '../core/model.ts';
import { FailureList, sumCounts, zeroCounts } from '../core/report.ts';
import type { WorkerRequest } from './delete-worker.ts';
import type { WalkBranch, WalkCounts, WalkFailure, WalkMode, WalkResult, WalkTask } from './walk.ts';
import { borrowWorkers, returnWorker } from './worker-pool.ts';

/** A present branch the pre-flight verified: logical disk and path, real path, dev and inode. */
export interface VerifiedBranch {
  disk: string;
  path: string;
  realPath: string;
  dev: number;
  ino: number;
}

export interface DeleteProgress {
  totals: DeleteCounts;
  branches: Array<DeleteCounts & { disk: string }>;
}

export interface TreeDeleteOptions {
  share: string;
  dryRun: boolean;
  paths: HostPaths;
  branches: VerifiedBranch[];
  /** Worker threads. Default: see defaultWorkerCount; at most 16. */
  workers?: number;
  /**
   * Use the native `*at` addon (@appliance/fs-at) when it is built and loads (default true); false
   * forces the pure-JS walker (`/proc/self/fd/<fd>/<name>` paths).
   */
  native?: boolean;
  onProgress?: (progress: DeleteProgress) => void;
}

export interface BranchOutcome extends DeleteCounts {
  disk: string;
  failureCount: number;
  stop: 'read_only' | 'disk_error' | null;
}

export interface TreeDeleteResult {
  branches: BranchOutcome[];
  failures: FailureList;
  /** Which walker the threads were asked to use: the native addon, or the pure-JS fallback. */
  walker: 'native' | 'js';
}

/** Directories deeper than this below the branch are never split between threads. */
const MAX_SPLIT_DEPTH = 3;
const MAX_WORKERS = 16;

interface Node {
  id: number;
  branch: number;
  names: string[];
  removeSelf: boolean;
  parent: Node | null;
  /** Split children still running. */
  pending: number;
  blocked: boolean;
}

interface WorkerMessage {
  type: 'progress' | 'done' | 'ended';
  branch: number;
  counts?: WalkCounts;
  result?: WalkResult;
  failures?: WalkFailure[];
  failureCount?: number;
}

/**
 * The default number of worker threads for a delete over `branchCount` present branches: one per
 * branch, and at least as many as the host has cores (up to 4), so a branch's subtrees are split
 * between otherwise idle threads. With the native walker a file costs about what it costs `rm -rf`,
 * so on 2 cores a second thread on one branch is what puts the delete ahead of `rm -rf` (05 §8 P1,
 * measured 22 Nov 2026; the pure-JS walker's second thread gained less, see the bench README).
 */
export function defaultWorkerCount(branchCount: number, cores = os.availableParallelism()): number {
  return Math.min(MAX_WORKERS, Math.max(branchCount, Math.min(cores, 4)));
}

/**
 * Refuses (a programming error, answered 500 internal) any branch that is not exactly
 * `<cache or data mountpoint>/<share>` with its real path under the host root.
 */
export function assertPlannedBranches(
  share: string,
  paths: HostPaths,
  branches: readonly VerifiedBranch[],
): void {
  for (const b of branches) {
    if (!isBranchPath(share, b.disk, b.path) || b.realPath !== paths.real(b.path)) {
      throw new Error(
        `refusing to delete ${JSON.stringify(b.realPath)}: not a planned branch of share ${share}`,
      );
    }
  }
}

/** How long a thread may take to close its branch handles before it is ended instead of reused. */
const RELEASE_TIMEOUT_MS = 5_000;

/**
 * Asks an idle thread to close its branch handles (`end`), and gives it back to the pool once it
 * says so (`ended`); a thread that does not answer in time is ended.
 */
function release(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (msg: WorkerMessage): void => {
      if (msg.type !== 'ended') return;
      clearTimeout(timer);
      returnWorker(worker);
      resolve();
    };
    const timer = setTimeout(() => {
      worker.off('message', onMessage);
      void worker.terminate();
      resolve();
    }, RELEASE_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.postMessage({ type: 'end' } satisfies WorkerRequest);
  });
}

export async function deleteBranchTrees(options: TreeDeleteOptions): Promise<TreeDeleteResult> {
  const { share, dryRun, paths, branches } = options;
  assertPlannedBranches(share, paths, branches);
  const counts = branches.map(() => zeroCounts());
  const failureCounts = branches.map(() => 0);
  const stops: Array<'read_only' | 'disk_error' | null> = branches.map(() => null);
  const tallies = branches.map(() => new HardLinkTally());
  const failures = new FailureList();
  const addon = options.native === false ? null : fsAtAddonPath();
  const result = (): TreeDeleteResult => ({
    branches: branches.map((b, i) => ({
      disk: b.disk,
      ...counts[i]!,
      bytesFreed: counts[i]!.bytesFreed + tallies[i]!.bytesFreed(),
      failureCount: failureCounts[i]!,
      stop: stops[i]!,
    })),
    failures,
    walker: addon === null ? 'js' : 'native',
  });
  if (branches.length === 0) return result();

  const abortBuffer = new SharedArrayBuffer(4 * branches.length);
  const abort = new Int32Array(abortBuffer);
  const walkBranches: WalkBranch[] = branches.map((b) => ({
    realPath: b.realPath,
    logicalPath: b.path,
    disk: b.disk,
    dev: b.dev,
    ino: b.ino,
  }));
  const workerCount = Math.max(
    1,
    Math.min(options.workers ?? defaultWorkerCount(branches.length), MAX_WORKERS),
  );
  const begin: WorkerRequest = { type: 'begin', branches: walkBranches, dryRun, abort: abortBuffer, addon };

  let nextId = 1;
  const queue: Array<{ node: Node; mode: WalkMode }> = [];
  const running = new Map<number, { node: Node; mode: WalkMode }>();
  const idle: Worker[] = [];
  const workers = borrowWorkers(workerCount);
  const broken = new Set<Worker>();

  const progress = (): void => {
    if (!options.onProgress) return;
    options.onProgress({
      totals: sumCounts(counts),
      branches: branches.map((b, i) => ({ disk: b.disk, ...counts[i]! })),
    });
  };

  return new Promise<TreeDeleteResult>((resolve, reject) => {
    let settled = false;
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      const released: Promise<void>[] = [];
      for (const w of workers) {
        // a thread is reused only when it is idle and healthy; a failed operation ends its threads
        if (err || broken.has(w) || !idle.includes(w)) void w.terminate();
        else released.push(release(w));
      }
      if (err) reject(err);
      else {
        progress();
        // answered once every thread has closed its branch handles: a caller that unmounts a disk
        // right after the delete must not find it busy
        void Promise.all(released).then(() => resolve(result()));
      }
    };

    const complete = (node: Node, blocked: boolean): void => {
      const parent = node.parent;
      if (parent === null) return;
      if (blocked) parent.blocked = true;
      parent.pending -= 1;
      if (parent.pending === 0) childrenDone(parent);
    };
    const childrenDone = (node: Node): void => {
      if (node.removeSelf && !node.blocked && Atomics.load(abort, node.branch) === 0) {
        queue.unshift({ node, mode: 'rmdir' });
      } else {
        complete(node, node.blocked);
      }
    };

    const dispatch = (): void => {
      while (idle.length > 0 && queue.length > 0) {
        const item = queue.shift()!;
        const { node } = item;
        if (Atomics.load(abort, node.branch) !== 0) {
          // the branch stopped (read-only or failing disk): nothing more is tried on it
          if (item.mode === 'rmdir') complete(node, true);
          else {
            node.blocked = true;
            complete(node, true);
          }
          continue;
        }
        // Split a subtree between threads while fewer tasks wait than there are threads: work is
        // handed out in smaller pieces as the queue runs short, so that at the end of a branch no
        // thread idles while another finishes a large subtree alone. The queue stays short (a split
        // adds one directory's subdirectories, and only while fewer than `workerCount` wait).
        let mode = item.mode;
        if (
          mode === 'tree' &&
          workerCount > 1 &&
          node.names.length < MAX_SPLIT_DEPTH &&
          queue.length < workerCount
        )
          mode = 'split';
        const worker = idle.pop()!;
        running.set(node.id, { node, mode });
        const task: WalkTask = {
          id: node.id,
          branch: node.branch,
          names: node.names,
          mode,
          removeSelf: node.removeSelf,
        };
        worker.postMessage({ type: 'task', task } satisfies WorkerRequest);
      }
      if (queue.length === 0 && running.size === 0) finish();
    };

    const onDone = (worker: Worker, msg: WorkerMessage): void => {
      const res = msg.result!;
      const item = running.get(res.id);
      running.delete(res.id);
      idle.push(worker);
      if (msg.failures && msg.failureCount) {
        failures.addBatch(msg.failures as DeleteFailure[], msg.failureCount);
        failureCounts[msg.branch] = (failureCounts[msg.branch] ?? 0) + msg.failureCount;
      }
      if (res.stop && stops[msg.branch] === null) stops[msg.branch] = res.stop;
      if (res.tally.length > 0) tallies[msg.branch]!.addRows(res.tally);
      if (!item) {
        finish(new Error(`unknown task ${res.id}`));
        return;
      }
      const { node, mode } = item;
      if (mode === 'split') {
        if (res.blocked) node.blocked = true;
        const children = res.stop ? [] : res.subdirs;
        node.pending = children.length;
        for (const name of children) {
          const child: Node = {
            id: nextId++,
            branch: node.branch,
            names: [...node.names, name],
            removeSelf: true,
            parent: node,
            pending: 0,
            blocked: false,
          };
          queue.push({ node: child, mode: 'tree' });
        }
        if (children.length === 0) childrenDone(node);
      } else {
        complete(node, res.blocked);
      }
      dispatch();
    };

    // one root task per branch, in branch order, so every branch starts at once
    branches.forEach((_b, i) => {
      queue.push({
        node: {
          id: nextId++,
          branch: i,
          names: [],
          removeSelf: false,
          parent: null,
          pending: 0,
          blocked: false,
        },
        mode: 'tree',
      });
    });

    for (const worker of workers) {
      worker.postMessage(begin);
      worker.on('message', (msg: WorkerMessage) => {
        if (settled) return;
        if (msg.type === 'progress' && msg.counts) {
          const c = counts[msg.branch]!;
          c.filesDeleted += msg.counts.files;
          c.dirsDeleted += msg.counts.dirs;
          c.bytesFreed += msg.counts.bytes;
          progress();
        } else if (msg.type === 'done') {
          try {
            onDone(worker, msg);
          } catch (err) {
            finish(err);
          }
        }
      });
      worker.on('error', (err) => {
        broken.add(worker);
        finish(err);
      });
      worker.on('exit', (code) => {
        broken.add(worker);
        if (!settled) finish(new Error(`a delete worker exited with code ${code}`));
      });
      idle.push(worker);
    }
    dispatch();
  });
}
