/**
 * What the backup jobs (run, restore, drill) need from outside, as small interfaces (issue 33):
 * the plan store and the records of runs and snapshots, the repository password, the settings a
 * run reads, the destination disk, the stacks, the file system's paths, the configuration archive,
 * the event sink, the command runner, a clock and a log. The server wires its SQLite stores and
 * context into these (`api-server/src/features/backups/deps.ts`); `src/test-support/` has
 * in-memory ones.
 */
import type { CommandRunner } from '@appliance/common';
import type { JobKind, JobView } from '@appliance/jobs';
import type { RaisedEvent } from './core/messages.ts';
import type { BackupPlan, PlanSpec } from './core/plan.ts';
import type { PlanScheduleState, ScheduleDeps } from './jobs/schedules.ts';
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

/** A plan as stored: its settings and its sealed repository password (null: not known here). */
export interface StoredPlan extends BackupPlan {
  sealedPassword: Buffer | null;
}

/** A plan's recorded state as its view shows it: the schedules' fields, the last run and drill. */
export interface PlanStatusState extends PlanScheduleState {
  lastRunJobId: string | null;
  lastRunState: string | null;
  lastRunAt: string | null;
  lastDrillJobId: string | null;
  lastDrillState: string | null;
}

/** The plans as the administration reads them (outside a write). */
export interface PlanRecords {
  list(): StoredPlan[];
  read(name: string): StoredPlan | null;
  state(plan: string): PlanStatusState | null;
}

/** One write transaction of the plans; `audit` records its row (the actor is bound by the port). */
export interface PlanTx {
  read(name: string): StoredPlan | null;
  /** Inserts the plan, and its state row (`since` = at). */
  insert(name: string, spec: PlanSpec, sealedPassword: Buffer, at: string): void;
  update(name: string, spec: PlanSpec, at: string): void;
  /** Deletes the plan, its state and the records of its snapshots. */
  delete(name: string): void;
  audit(entry: { operation: string; target: string; details?: Record<string, unknown> }): void;
}

/** What the installation holds that a plan may name (checkPlan's facts, before the rules). */
export interface PlanFactSources {
  stacks(): readonly { name: string; pending: boolean }[];
  shares(): readonly string[];
  /** The registered external disks. */
  destinations(): Promise<readonly { label: string; backupDestination: boolean }[]>;
  /** A backup passphrase is stored in the settings. */
  passphraseSet(): boolean;
}

/** The job runner as a request sees it (the actor bound by the port). */
export interface PlanJobs {
  start<P, R>(
    kind: JobKind<P, R>,
    params: P,
    options: { target: string; auditOperation: string },
  ): Promise<{ view: JobView<P, R> }>;
  runningOf<P, R>(kind: JobKind<P, R>): readonly JobView<P, R>[];
}

/** The ports of the plan operations (create, update, delete, view, start a run, drill or restore). */
export interface PlanAdminPorts {
  plans: PlanRecords;
  /** Runs `fn` as one write transaction. */
  write<T>(fn: (tx: PlanTx) => T): Promise<T>;
  facts: PlanFactSources;
  /** Seals a repository password for the database. */
  seal(password: string): Buffer;
  randomBytes(size: number): Buffer;
  jobs: PlanJobs;
  /** Refuses a label that is not a registered, attached backup destination. */
  checkDestination(label: string): Promise<unknown>;
  /** The schedules' side (next run and drill, staleness, its check after a deletion). */
  schedules: ScheduleDeps;
  clock: { now(): Date };
}
