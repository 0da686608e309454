/**
 * Worker thread entry of the tree deleter. The pool (worker-pool.ts) keeps these threads warm; one
 * delete operation owns a thread at a time: `begin` sets up its walker, each `task` runs with
 * synchronous fs calls (cheaper per entry than promises) and is answered with its result and the
 * failures it met, `end` closes the branch handles and is answered `ended`. Imports only node
 * builtins and relative files (loaded by Node itself, without the workspace resolver); the native
 * addon, when the coordinator found one, is loaded from the path `begin` names, and the walker
 * falls back to its pure-JS `/proc/self/fd` paths when it does not load in this thread.
 */
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { FsAt } from '@appliance/fs-at';
import { TreeWalker, type WalkBranch, type WalkFailure, type WalkTask } from './walk.ts';

export type WorkerRequest =
  | {
      type: 'begin';
      branches: WalkBranch[];
      dryRun: boolean;
      /** Int32Array over it: a non-zero slot stops that branch. */
      abort: SharedArrayBuffer;
      /** Path of the @appliance/fs-at addon to use, or null for the pure-JS walker. */
      addon: string | null;
    }
  | { type: 'task'; task: WalkTask }
  | { type: 'end' };

/** Failures listed per task message; the coordinator keeps the first 100 overall. */
const LISTED_PER_TASK = 100;

const port = parentPort;
if (port === null) throw new Error('delete-worker.ts must run in a worker thread');

let walker: TreeWalker | null = null;
const addons = new Map<string, FsAt | null>();

/** The addon at `file`, loaded once per thread; null (pure-JS walker) when it does not load. */
function addon(file: string | null): FsAt | null {
  if (file === null) return null;
  let at = addons.get(file);
  if (at === undefined) {
    try {
      const module = { exports: {} as FsAt };
      process.dlopen(module, file, os.constants.dlopen.RTLD_NOW);
      at = typeof module.exports.drain === 'function' ? module.exports : null;
    } catch {
      at = null;
    }
    addons.set(file, at);
  }
  return at;
}
let failures: WalkFailure[] = [];
let failureCount = 0;

port.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'begin') {
    walker?.close();
    walker = new TreeWalker(
      msg.branches,
      msg.dryRun,
      new Int32Array(msg.abort),
      {
        progress: (branch, counts) => port.postMessage({ type: 'progress', branch, counts }),
        failure: (_branch, failure) => {
          failureCount += 1;
          if (failures.length < LISTED_PER_TASK) failures.push(failure);
        },
      },
      addon(msg.addon),
    );
  } else if (msg.type === 'task') {
    if (walker === null) throw new Error('task before begin');
    const result = walker.run(msg.task);
    port.postMessage({ type: 'done', branch: msg.task.branch, result, failures, failureCount });
    failures = [];
    failureCount = 0;
  } else {
    walker?.close();
    walker = null;
    // the branch handles are closed: the coordinator answers only now, so a disk is never left busy
    port.postMessage({ type: 'ended' });
  }
});
