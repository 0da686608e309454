/**
 * A small pool of warm delete worker threads (delete-worker.ts), so a delete does not pay for
 * starting threads. A delete borrows threads exclusively and gives them back; a thread idle for
 * IDLE_MS is ended. Idle threads do not keep the process alive.
 */
import fs from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';

type Worker = WorkerThreads.Worker;

const IDLE_MS = 30_000;
/**
 * A walker holds little (a stack of directories and the names still to visit), but V8's default
 * heap sizing lets each thread grow to tens of MiB of garbage; small limits keep a 4-branch delete
 * within the server's memory budget (05 §8 P3). The native walker allocates only a few small arrays
 * per 32 KiB directory batch, so a 1 MiB young generation is enough (4 MiB until 22 Nov 2026).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 64 };
let workerUrl: URL | null = null;

/**
 * A new delete thread. node:worker_threads loads here, on the first delete, not with the service
 * (it is 2.5 MiB of the idle service's memory; docs/decisions/performance.md, "The web globals").
 */
function startWorker(): Worker {
  const { Worker } = process.getBuiltinModule('node:worker_threads') as typeof WorkerThreads;
  return new Worker(workerModule(), { stdout: false, stderr: false, resourceLimits: WORKER_LIMITS });
}

/**
 * The worker module. Built (`.js`): the file next to this one. From TypeScript sources: the three
 * worker files with their types stripped once, here, as `data:` modules, because Node's type stripping
 * inside each thread costs about 12 MiB per thread (13 instead of 25 MiB per worker, measured).
 */
function workerModule(): URL {
  if (workerUrl) return workerUrl;
  if (path.extname(fileURLToPath(import.meta.url)) !== '.ts') {
    workerUrl = new URL('./delete-worker.js', import.meta.url);
    return workerUrl;
  }
  const js = (file: string) => stripTypeScriptTypes(fs.readFileSync(new URL(file, import.meta.url), 'utf8'));
  const dataUrl = (code: string) => `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
  const link = (code: string, specifier: string, target: string) => {
    if (!code.includes(`'${specifier}'`)) throw new Error(`worker source lacks the import ${specifier}`);
    return code.replace(`'${specifier}'`, `'${target}'`);
  };
  const rules = dataUrl(js('../core/entry-rules.ts'));
  const walk = dataUrl(link(js('./walk.ts'), '../core/entry-rules.ts', rules));
  workerUrl = new URL(dataUrl(link(js('./delete-worker.ts'), './walk.ts', walk)));
  return workerUrl;
}

interface Idle {
  worker: Worker;
  timer: NodeJS.Timeout;
}

const idle: Idle[] = [];

/** Borrows `count` threads (warm ones first). */
export function borrowWorkers(count: number): Worker[] {
  const out: Worker[] = [];
  while (out.length < count) {
    const warm = idle.pop();
    if (warm) {
      clearTimeout(warm.timer);
      warm.worker.ref();
      out.push(warm.worker);
    } else {
      out.push(startWorker());
    }
  }
  return out;
}

/**
 * Makes sure `count` threads are idle in the pool, starting the missing ones now: a delete calls
 * this before its pre-flight, so that the threads boot while `findmnt` and `blkid` run instead of
 * after them. Threads nobody borrows end after IDLE_MS, like returned ones.
 */
export function warmWorkers(count: number): void {
  for (let missing = count - idle.length; missing > 0; missing--) {
    returnWorker(startWorker());
  }
}

/** Gives a healthy thread back (its listeners removed); it ends after IDLE_MS unused. */
export function returnWorker(worker: Worker): void {
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    const i = idle.findIndex((e) => e.worker === worker);
    if (i >= 0) idle.splice(i, 1);
  });
  worker.unref();
  const timer = setTimeout(() => {
    const i = idle.findIndex((e) => e.worker === worker);
    if (i >= 0) idle.splice(i, 1);
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle.push({ worker, timer });
}

/** Ends every idle thread now (tests, shutdown). */
export async function closeIdleWorkers(): Promise<void> {
  const all = idle.splice(0);
  for (const e of all) clearTimeout(e.timer);
  await Promise.all(all.map((e) => e.worker.terminate()));
}
