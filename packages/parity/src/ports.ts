/**
 * What the parity jobs need from outside, as small ports. The server implements them over its
 * SQLite database and context (`features/parity/deps.ts`); a daemon or a test supplies its own
 * (`@appliance/parity/testing` has in-memory ones).
 */
import type { Clock, CommandRunner } from '@appliance/common';
import type { JobHandle, JobKind, JobState, JobView } from '@appliance/jobs';
import type { ArrayStatus } from './core/status.ts';
import type { DiffSummary } from './core/diff.ts';
import type { RaisedEvent } from './core/messages.ts';
import type { ParitySettings } from './core/settings.ts';

/** A slot of the array as the parity jobs see it (the array's `ArraySlot` has this shape). */
export interface ParitySlot {
  role: 'parity' | 'data' | 'cache';
  /** 1-based level of its role: data disk `d<roleIndex>`, parity level. */
  roleIndex: number;
  /** Where it is mounted (as recorded; logical path). */
  mountpoint: string;
  /** The device recorded for it (`/dev/…`), named when it is missing. */
  device: string;
}

/** The array's slots, and whether a slot's disk is there now. */
export interface SlotsReader {
  list(): readonly ParitySlot[];
  /** Whether the slot's disk is mounted at its mountpoint (the jobs refuse to run without it). */
  present(slot: ParitySlot): Promise<boolean>;
}

/** The last `snapraid diff` as recorded (paths included). */
export interface RecordedDiff extends DiffSummary {
  at: string;
  jobId: string;
}

/** The last `snapraid status` as recorded after a job. */
export interface RecordedStatus extends Omit<ArrayStatus, 'oldestScrubAt'> {
  oldestScrubAt: string | null;
  at: string;
}

/** What the parity jobs found last, kept between runs. */
export interface ParityState {
  lastDiff: RecordedDiff | null;
  lastStatus: RecordedStatus | null;
  /** Since when syncs are blocked by the deletion guard (ISO), null when the last one was not. */
  blockedSince: string | null;
}

/** The parity settings and state. Reads are synchronous (SQLite in process); writes are queued. */
export interface ParityStore {
  settings(): ParitySettings;
  state(): ParityState;
  /** Replaces the given fields of the state (one write). */
  update(patch: Partial<ParityState>): Promise<void>;
}

/** What saving the data disks' metadata (owners, modes, ACLs, xattrs) did after a sync. */
export interface MetadataOutcome {
  /** Disks whose metadata was saved, with the number of entries. */
  saved: Array<{ disk: string; mountpoint: string; entries: number }>;
  /** Disks that were not saved, and why (a missing tool, a failed walk). */
  skipped: Array<{ disk: string; mountpoint: string; reason: string }>;
}

/** Saves the metadata SnapRAID does not keep, for every mounted data disk, after a sync. */
export interface MetadataSaver {
  /** Resolves null when the job's signal aborted it; may write a line to the job's output. */
  save(job: JobHandle): Promise<MetadataOutcome | null>;
}

/** Where the parity events go (the notification path). */
export interface ParityEventSink {
  /** Raises an event now. */
  raise(event: RaisedEvent): Promise<void>;
  /** Reports a condition, raised once while it holds (`array:degraded`). */
  hold(key: string, event: RaisedEvent): Promise<void>;
}

/** Structured log lines. */
export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Everything the sync and scrub jobs need. */
export interface ParityJobDeps {
  /** Runs snapraid (and the tools the metadata saver uses). */
  runner: CommandRunner;
  /** The real path of snapraid.conf. */
  configFile: string;
  clock: Clock;
  /** Milliseconds on a monotonic clock, for a sync's duration (default `performance.now`). */
  monotonicMs?: () => number;
  log: Log;
  slots: SlotsReader;
  store: ParityStore;
  metadata: MetadataSaver;
  events: ParityEventSink;
}

/** The jobs as the status and the schedules read and start them (a `JobRunner` has this shape). */
export interface ParityJobs {
  latest<P, R>(kind: JobKind<P, R>, states?: readonly JobState[]): JobView<P, R> | null;
  running(): JobView[];
  start<P, R>(
    kind: JobKind<P, R>,
    params: P,
    options: { target: string; actor: null; trigger: 'schedule' },
  ): Promise<{ view: { id: string } }>;
}
