/**
 * What the mover job needs from outside, as small ports. The server implements them over its
 * SQLite database and context (`api-server/src/features/mover/deps.ts`); a test or another host
 * supplies its own (`src/mover/test-support.ts` has in-memory ones).
 */
import type { JobKind } from '@appliance/jobs';
import type { CommandRunner } from '@appliance/common';
import type { MoverOptions, MoverShare } from './node/mover.ts';

/** A disk as the mover job sees it: where it is mounted (as recorded) and its real path. */
export interface MoverDisk {
  mountpoint: string;
  path: string;
}

export interface MoverSettings {
  enabled: boolean;
  /** Daily at this local time (HH:MM, the appliance's time zone). */
  time: string;
  verify: 'size-mtime' | 'sha256';
}

/** Daily at 02:00: an hour before the parity sync's default 03:00, so the sync protects what moved. */
export const DEFAULT_MOVER_SETTINGS: MoverSettings = { enabled: true, time: '02:00', verify: 'size-mtime' };

/** The mover job's ports. Reads are synchronous (SQLite in process). */
export interface MoverJobDeps {
  /** The cache and the data disks that take files (in the array's order); null without a cache. */
  disks(): { cache: MoverDisk; data: MoverDisk[] } | null;
  /** Whether a disk is there now (mounted). */
  present(disk: MoverDisk): Promise<boolean>;
  /** The `cache-then-move` shares and their create policies. */
  shares(): MoverShare[];
  /** Bytes every data disk keeps free (the array's minfreespace). */
  minFreeBytes(): number;
  /** Where a batch is journalled (the restart recovery reads it). */
  journalDir(): string;
  /** `/proc` (a sandbox may point elsewhere). */
  procDir: string;
  runner: CommandRunner;
  /** Test only, read when a run starts: smaller batches, a hook before each batch. */
  tuning?(): Pick<MoverOptions, 'batch' | 'beforeBatch'>;
  /** The notification path (`mover_skipping_files`). */
  raise(event: { eventType: string; title: string; message: string }): Promise<void>;
  log: { error(message: string, fields?: Record<string, unknown>): void };
}

/** Starts a job of a kind (the shared job runner's `start`). */
export interface MoverJobStarter {
  start<P, R>(
    kind: JobKind<P, R>,
    params: P,
    options: { target: string; actor: null; trigger: 'schedule' },
  ): Promise<{ view: { id: string } }>;
}

/** The mover schedule's ports. */
export interface MoverScheduleDeps {
  settings(): MoverSettings;
  /** When the array was set up; null while there is none (no schedule). */
  arraySince(): Date | null;
  /** Whether the array has a cache disk (without one there is nothing to move: no schedule). */
  hasCache(): boolean;
  /** The appliance's IANA time zone. */
  timeZone(): string;
  jobs: MoverJobStarter;
}
