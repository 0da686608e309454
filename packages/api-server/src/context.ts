import type { Conditions, JobRunner, Scheduler } from '@appliance/jobs';
import type { Clock, CommandRunner, HostPaths, InventoryReader } from '@appliance/common';
import type { WatcherRunner } from '@appliance/watchers';
import type Database from 'better-sqlite3';
import type { Config } from './config.ts';
import type { Db } from './db/open.ts';
import type { Sealer } from './db/machine-key.ts';
import type { WriteQueue } from './db/write-queue.ts';
import type { Logger } from './logger.ts';
import type { Actor, AuditLog } from './services/audit.ts';
import type { EventBus } from './services/events.ts';
import type { GeneratedFiles } from './services/generated-files.ts';
import type { KeyedLocks } from './services/locks.ts';
import type { ObservedEvents } from './services/observed-events.ts';
import type { OperationGate } from './services/operation-gate.ts';

/**
 * Everything a route handler may use. Built once at startup (createContext) and passed to every
 * feature. Tests build it the same way, pointing the paths at a sandbox root.
 */
export interface AppContext {
  config: Config;
  paths: HostPaths;
  clock: Clock;
  runner: CommandRunner;
  logger: Logger;
  /** Drizzle over better-sqlite3: reads may use it directly. */
  db: Db;
  sqlite: Database.Database;
  /** Every write goes through here: atomic per job, group-committed (see db/write-queue.ts). */
  writes: WriteQueue;
  sealer: Sealer;
  /** HMAC of the machine key (identifies the installation). */
  machineKeyCheck: string;
  audit: AuditLog;
  events: EventBus;
  locks: KeyedLocks;
  /** The import lock: every write and long operation passes it (http/app.ts, 08 §14). */
  gate: OperationGate;
  /** Long operations as jobs (`@appliance/jobs`, wired in features/jobs/deps.ts): rows, progress, exclusion, cancel, recovery. */
  jobs: JobRunner<Actor>;
  /** The in-service scheduler (`@appliance/jobs`), on `clock`. */
  scheduler: Scheduler;
  /** Fresh disk inventory on every call (lab mode from the configuration). */
  inventory: InventoryReader;
  /** Hooks features register for each other (e.g. smb.conf regeneration after a user delete). */
  hooks: Hooks;
  /** Random UUID / bytes, replaceable in tests. */
  random: { uuid(): string; bytes(n: number): Buffer };
  /**
   * Conditions that hold now (`@appliance/jobs`, wired in features/jobs/deps.ts): `hold(key, event)`
   * raises once, `clear(key)` records the end. Watchers and any feature reporting a condition share it.
   */
  conditions: Conditions<Db>;
  /** The watcher loops (`@appliance/watchers`): `register` in a feature's start, `runOnce` in tests. */
  watchers: WatcherRunner;
  /** What the service last wrote to each generated file: `record(realPath)` after writing one. */
  generated: GeneratedFiles;
  /** Which catalog events this installation raises (from every feature's `raises`). */
  observed: ObservedEvents<AppContext>;
}

export interface Hooks {
  /** Regenerate smb.conf (set by the shares feature). Throws AppError 500 smb_regeneration_failed. */
  regenerateSamba: () => Promise<void>;
  /** Asks Samba to reload smb.conf written by someone else (the config import); set by shares. */
  reloadSamba?: () => void;
  /** Whether a share data delete runs for this share (set by the share-data feature). */
  shareDataDeleteRunning: (shareName: string) => boolean;
  /** Samba/Unix account adapter (real host, or `samba.sandbox`; absent in any other sandbox). */
  sambaAccounts?: {
    setPassword(username: string, password: string): Promise<void>;
    remove(username: string): Promise<void>;
  };
  /** Test fault injection: runs before each batch of a mover run (a test cancels or kills there). */
  moverBeforeBatch?: (index: number) => void | Promise<void>;
  /** Test only: smaller mover batches (a test needs several without writing 10,000 files). */
  moverBatch?: { maxFiles: number; maxBytes: number };
  /** Test fault injection: runs before each config import step; a throw fails that step. */
  importFault?: (step: string) => void | Promise<void>;
  /**
   * Re-reads the TLS certificate and key the HTTPS listener serves (`setSecureContext`: new
   * connections get them, no restart). Set by the server when its TCP listener is HTTPS.
   */
  reloadTls?: () => void;
  /** Raise a notification event (set by the notifications feature). */
  raise?: (event: { eventType: string; title: string; message: string }) => Promise<void>;
  /**
   * Raise inside the caller's write job, so the alert commits together with the caller's rows (the
   * conditions); `announce` after the commit pushes it on GET /events and wakes the delivery worker.
   * Set by the notifications feature.
   */
  raiseWithin?: (
    db: Db,
    event: { eventType: string; title: string; message: string },
  ) => { alertId: number; announce: () => void };
}
