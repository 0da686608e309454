/**
 * Worker thread entry of the tree deleter. The pool (worker-pool.ts) keeps these threads warm; one
 * delete operation owns a thread at a time: `begin` sets up its walker, each `task` runs with
 * synchronous fs calls (cheaper per entry than promises) and is answered with its result and the
 * failures it met, `end` releases the branch handles. Imports only node builtins and relative files
 * (loaded by Node itself, without the workspace resolver).
 */
import { parentPort } from 'node:worker_threads';
import { TreeWalker, type WalkBranch, type WalkFailure, type WalkTask } from './walk.ts';

export type WorkerRequest =
  | {
      type: 'begin';
      branches: WalkBranch[];
      dryRun: boolean;
      /** Int32Array over it: a non-zero slot stops that branch. */
      abort: SharedArrayBuffer;
    }
  | { type: 'task'; task: WalkTask }
  | { type: 'end' };

/** Failures listed per task message; the coordinator keeps the first 100 overall. */
const LISTED_PER_TASK = 100;

const port = parentPort;
if (port === null) throw new Error('delete-worker.ts must run in a worker thread');

let walker: TreeWalker | null = null;
let failures: WalkFailure[] = [];
let failureCount = 0;

port.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'begin') {
    walker?.close();
    walker = new TreeWalker(msg.branches, msg.dryRun, new Int32Array(msg.abort), {
      progress: (branch, counts) => port.postMessage({ type: 'progress', branch, counts }),
      failure: (_branch, failure) => {
        failureCount += 1;
        if (failures.length < LISTED_PER_TASK) failures.push(failure);
      },
    });
  } else if (msg.type === 'task') {
    if (walker === null) throw new Error('task before begin');
    const result = walker.run(msg.task);
    port.postMessage({ type: 'done', branch: msg.task.branch, result, failures, failureCount });
    failures = [];
    failureCount = 0;
  } else {
    walker?.close();
    walker = null;
  }
});
