/**
 * What the backup jobs (run, restore, drill) need from outside, as small interfaces (issue 33):
 * the plan store and the records of runs and snapshots, the repository password, the settings a
 * run reads, the destination disk, the stacks, the file system's paths, the configuration archive,
 * the event sink, the command runner, a clock and a log. The server wires its SQLite stores and
 * context into these (`api-server/src/features/backups/deps.ts`); `src/test-support/` has
 * in-memory ones.
 */
import type { CommandRunner } from '@appliance/common';
import type { RaisedEvent } from './core/messages.ts';
import type { BackupPlan } from './core/plan.ts';
import type { StackControl } from './node/stack.ts';

/** A plan's runtime state, as far as the jobs read it. */
export interface PlanRunState {
  lastRetentionAt: string | null;
  lastPruneAt: string | null;
  forgottenSincePrune: number;
  drillCount: number;
}

/** The fields of a plan's state the jobs write. */
export interface PlanStatePatch {
  lastRetentionAt?: string;
  lastPruneAt?: string;
  forgottenSincePrune?: number;
}

/** A snapshot made by a run here: its size, for the snapshot list. */
export interface SnapshotRecord {
  /** restic's short id. */
  id: string;
  plan: string;
  /** `config`, `stack:<name>`, `share:<name>`. */
  part: string;
  time: string;
  sizeBytes: number | null;
  dataAddedBytes: number | null;
  files: number | null;
}

export type SnapshotSize = Pick<SnapshotRecord, 'sizeBytes' | 'dataAddedBytes' | 'files'>;

/** The plans and what the jobs record about them. Reads may answer at once or as a promise. */
export interface BackupStore {
  readPlan(name: string): BackupPlan | null | Promise<BackupPlan | null>;
  readState(plan: string): PlanRunState | null | Promise<PlanRunState | null>;
  updateState(plan: string, patch: PlanStatePatch): Promise<void>;
  recordSnapshot(row: SnapshotRecord): Promise<void>;
  /** Sizes recorded for a plan's snapshots, by short id. */
  snapshotSizes(plan: string): Map<string, SnapshotSize> | Promise<Map<string, SnapshotSize>>;
  /** Forgets the records of snapshots retention removed, and writes the state patch (one write). */
  recordRetention(plan: string, removedShortIds: readonly string[], patch: PlanStatePatch): Promise<void>;
  /** The end of a run (its job id and state; a success is the plan's last success). */
  recordRun(plan: string, at: string, jobId: string, state: string): Promise<void>;
  /** The end of a drill (counts the drills: each checks another tenth of the data). */
  recordDrill(plan: string, at: string, jobId: string, state: string): Promise<void>;
}

/** The repository password of a plan, unsealed; null when this box does not know it. */
export interface BackupSecrets {
  repositoryPassword(plan: string): string | null | Promise<string | null>;
}

/** The installation's settings a run reads. */
export interface BackupSettings {
  hostname: string;
  /** IANA time zone: retention's days and restic's times. */
  timeZone: string;
}

/** A plan's destination for the length of a job: mounted, watched, closed at the end. */
export interface Destination {
  label: string;
  /** Logical mountpoint (`/mnt/disks/<label>`). */
  mountpoint: string;
  /** Real mountpoint. */
  real: string;
  /** This job mounted it (and unmounts it at the end). */
  mountedHere: boolean;
  filesystem: string | null;
  device: string;
  /** Real path of a plan's repository on it. */
  repository(plan: string): string;
  /** Still attached and mounted, and the filesystem answers. */
  alive(): Promise<boolean>;
  /** A liveness check of this job found the disk not answering. */
  readonly lost: boolean;
  /** Unmounts it when this job mounted it; takes a dead mount off (never powers the disk down). */
  close(): Promise<void>;
}

/** Opens a registered backup destination by label (refuses a missing or unknown disk). */
export interface DestinationResolver {
  open(label: string): Promise<Destination>;
  /**
   * The disk is mounted at its mountpoint now (a job of it holds it): a read beside that job uses
   * the mount. Refuses a disk that is not registered or not attached.
   */
  mounted(label: string): Promise<boolean>;
}

/** What runs on a disk (the job runner's groups): a read outside a job holds the disk's group. */
export interface RepositoryHolds {
  busy(
    groups: readonly string[],
  ): { type: string; title: string; target: string; jobId: string | null } | null;
  hold(groups: readonly string[], what: { type: string; target: string; title?: string }): () => void;
  cancellable(jobId: string | null): boolean;
}

/** The stacks a backup stops and starts, and the watch of their containers. */
export interface BackupStacks extends StackControl {
  /** The stack is installed (its compose file exists). */
  exists(stack: string): Promise<boolean>;
  /** Pauses the watch of the stack's containers while a job stops and starts it on purpose. */
  pauseWatch(stack: string): () => void;
}

export interface BackupPaths {
  /** The real path of a logical one (`/mnt/user/<share>`, `/mnt/cache`, `/mnt/disks/<label>`). */
  real(logical: string): string;
  /** The logical path of a real one, or null when it is outside every known root. */
  logical(real: string): string | null;
  /** A private folder for the jobs' temporary folders (created 0700 when missing). */
  tmpDir: string;
  /** restic's cache, or null for none. */
  resticCache: string | null;
}

/** The configuration archive (01 §1): written to a file, mode 0600, by the export's own code. */
export interface ConfigArchive {
  write(file: string): Promise<unknown>;
}

/** Where the jobs' news goes: events (raised once), and "a run succeeded" (staleness ends). */
export interface BackupEvents {
  raise(event: RaisedEvent): Promise<void>;
  runSucceeded?(): Promise<void>;
}

export interface BackupLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface BackupPorts {
  store: BackupStore;
  secrets: BackupSecrets;
  settings(): BackupSettings;
  destinations: DestinationResolver;
  stacks: BackupStacks;
  paths: BackupPaths;
  /** Null: no configuration part can be backed up here (a plan naming it fails that part). */
  configArchive: ConfigArchive | null;
  events: BackupEvents;
  runner: CommandRunner;
  clock: { now(): Date };
  logger: BackupLogger;
}
