import type Database from 'better-sqlite3';
import type { Db } from './open.ts';
import type { WalSyncer } from './wal-syncer.ts';

type Job = {
  fn: (db: Db) => unknown;
  afterCommit: ((value: never) => Promise<unknown>) | undefined;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
};

export interface RunOptions<T> {
  /**
   * Started right after the batch's COMMIT (the change is visible, its fsync still running), so
   * work that only needs the committed rows — e.g. regenerating smb.conf — overlaps the WAL flush.
   * The job settles once both the flush and this promise have settled; a rejection fails the job.
   */
  afterCommit?: (value: T) => Promise<unknown>;
}

/**
 * Group commit. Every write runs as `await writes.run((db) => …)`: a synchronous function over the
 * drizzle handle, atomic on its own (a SAVEPOINT: a throw undoes only that job), and the jobs that
 * arrive in the same tick share ONE durable COMMIT (one fsync). A job's promise settles only after
 * that commit is on disk, so an acknowledged change is durable. Jobs run in arrival order, one at a time, so
 * concurrent writes to the same row serialise: the final state is exactly one job's result.
 */
export class WriteQueue {
  private queue: Job[] = [];
  private scheduled = false;
  /** A batch's WAL flush is running: new jobs gather until it ends (group commit). */
  private syncing = false;

  private readonly sqlite: Database.Database;
  private readonly db: Db;
  private readonly maxBatch: number;
  private readonly syncer: WalSyncer | null;
  private readonly stmt: Record<
    'begin' | 'savepoint' | 'release' | 'rollbackTo' | 'commit',
    Database.Statement
  >;

  /**
   * With a `syncer` the database runs `synchronous = NORMAL` and every batch is acknowledged only
   * after the syncer's fdatasync of the WAL (durable, and off the event loop); without one it
   * relies on `synchronous = FULL` (the commit itself syncs).
   */
  constructor(
    sqlite: Database.Database,
    db: Db,
    options: { maxBatch?: number; syncer?: WalSyncer | null } = {},
  ) {
    this.sqlite = sqlite;
    this.db = db;
    this.maxBatch = options.maxBatch ?? 256;
    this.syncer = options.syncer ?? null;
    // Prepared once: these run for every job of every batch.
    this.stmt = {
      begin: sqlite.prepare('BEGIN IMMEDIATE'),
      savepoint: sqlite.prepare('SAVEPOINT job'),
      release: sqlite.prepare('RELEASE job'),
      rollbackTo: sqlite.prepare('ROLLBACK TO job'),
      commit: sqlite.prepare('COMMIT'),
    };
  }

  run<T>(fn: (db: Db) => T, options: RunOptions<T> = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        fn,
        afterCommit: options.afterCommit as Job['afterCommit'],
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.schedule();
    });
  }

  /**
   * Flushes in the next turn, unless a batch's WAL flush is still running: then the jobs arriving
   * meanwhile wait for it and commit together right after it (one COMMIT and one fdatasync for all
   * of them instead of one per event-loop turn). Under load this is what makes batches large; idle,
   * a job still commits in the next turn.
   */
  private schedule(): void {
    if (this.scheduled || this.syncing || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.maxBatch);
    this.scheduled = false;
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.stmt.begin.run();
    } catch (error) {
      for (const job of batch) job.reject(error);
      this.schedule();
      return;
    }
    for (const job of batch) {
      this.stmt.savepoint.run();
      try {
        const value = job.fn(this.db);
        if (value instanceof Promise) throw new Error('WriteQueue jobs must be synchronous');
        this.stmt.release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        this.stmt.rollbackTo.run();
        this.stmt.release.run();
        outcomes.push({ ok: false, error });
      }
    }
    try {
      this.stmt.commit.run();
    } catch (error) {
      try {
        this.sqlite.exec('ROLLBACK');
      } catch {
        // already rolled back
      }
      for (const job of batch) job.reject(error);
      this.schedule();
      return;
    }
    const after = batch.map((job, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok || !job.afterCommit) return null;
      let pending: Promise<unknown>;
      try {
        pending = job.afterCommit(outcome.value as never);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.catch(() => undefined); // handled when the job settles
      return pending;
    });
    const settle = () =>
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        const pending = after[i];
        if (!outcome.ok) job.reject(outcome.error);
        else if (pending) pending.then(() => job.resolve(outcome.value), job.reject);
        else job.resolve(outcome.value);
      });
    if (!this.syncer) {
      settle();
      this.schedule();
      return;
    }
    this.syncing = true;
    const synced = () => {
      this.syncing = false;
      this.schedule();
    };
    this.syncer.sync().then(
      () => {
        synced();
        settle();
      },
      (error: unknown) => {
        synced();
        for (const job of batch) job.reject(error);
      },
    );
  }
}
