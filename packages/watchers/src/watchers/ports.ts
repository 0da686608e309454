/**
 * The facts the appliance's watchers read, as ports. Each watcher takes only the ports it uses
 * (`SpacePorts`, `DisksPorts`, …); `WatcherFactsPorts` is all of them, what a service wires once.
 */
import type { ArraySlot, MountpointGuard } from '@appliance/array-planner';
import type { Clock, CommandRunner, HostPaths, InventoryReader } from '@appliance/common';
import type { WatcherSettings } from '../core/settings.ts';
import type { SmartReading } from '../core/smart.ts';
import type { DockerProbe } from '../node/docker.ts';
import type { WatcherLogger } from '../ports.ts';

/** An array slot as recorded at setup (the array's own record: `@appliance/array-planner`). */
export type WatchedSlot = Pick<
  ArraySlot,
  | 'role'
  | 'roleIndex'
  | 'device'
  | 'fsUuid'
  | 'wwn'
  | 'serial'
  | 'byIdName'
  | 'weakIdentity'
  | 'sizeBytes'
  | 'mountpoint'
  | 'removalState'
>;

/** The last SMART reading of a disk. */
export interface LastSmart {
  at: string;
  device: string;
  reading: SmartReading;
}

/** A kept SMART reading (the history of `GET /disks/:id/smart`). */
export interface SmartHistoryRow {
  diskKey: string;
  device: string;
  at: string;
  passed: boolean | null;
  temperatureC: number | null;
  powerOnHours: number | null;
  counters: Record<string, number>;
}

/** Rows kept per disk (at most one a day without a change: years of history). */
export const HISTORY_ROWS_PER_DISK = 5000;

export interface SmartHistory {
  /** The newest kept reading of a disk, or null. */
  latest(diskKey: string): { passed: boolean | null; counters: Record<string, number>; at: string } | null;
  /** Keeps these readings (and trims each disk's history to `HISTORY_ROWS_PER_DISK`), in one write. */
  record(rows: readonly SmartHistoryRow[]): Promise<void>;
}

/** A file the service generated, as it recorded it last. */
export interface GeneratedRecord {
  /** As shown (logical path). */
  path: string;
  /** Where it is on this machine. */
  real: string;
  sha256: string;
  content: string | null;
  writtenAt: string;
}

export interface WatcherFactsPorts {
  /** The array's slots (none: no array, nothing to watch). */
  slots(): readonly WatchedSlot[];
  /** The watchers' settings in force, read at every cycle (a change takes effect at the next). */
  settings(): WatcherSettings;
  paths: HostPaths;
  inventory: InventoryReader;
  runner: CommandRunner;
  clock: Clock;
  logger: WatcherLogger;
  /**
   * Looks at every slot's own mountpoint directory (and seals an empty one): what each holds, by
   * logical mountpoint. Absent: not looked at (no hidden files reported).
   */
  guardSlots?(): Promise<ReadonlyMap<string, Pick<MountpointGuard, 'mounted' | 'count' | 'entries'>>>;
  /** The last SMART reading of each disk (by disk key), written by the smart watcher. */
  smartLast: Map<string, LastSmart>;
  smartHistory: SmartHistory;
  /** The generated files the service recorded. */
  generatedFiles(): readonly GeneratedRecord[];
  /** The TLS certificate the service serves (or would serve), or null. */
  certificateFile(): { real: string; generated: boolean } | null;
  /** Whether there is a certificate to watch (a configured one, or an HTTPS listener). */
  watchesCertificate(): boolean;
  /** The names of the stacks the service installed (their containers are watched). */
  stackNames(): ReadonlySet<string>;
  /** A Docker Engine probe (asked only with a stack). */
  docker(): DockerProbe;
}

export type SpacePorts = Pick<WatcherFactsPorts, 'slots' | 'settings' | 'paths'>;
export type DisksPorts = Pick<
  WatcherFactsPorts,
  'slots' | 'settings' | 'paths' | 'inventory' | 'runner' | 'logger' | 'guardSlots'
>;
export type SmartPorts = Pick<
  WatcherFactsPorts,
  'slots' | 'settings' | 'inventory' | 'runner' | 'clock' | 'smartLast' | 'smartHistory'
>;
export type DriftPorts = Pick<WatcherFactsPorts, 'settings' | 'generatedFiles'>;
export type CertificatePorts = Pick<
  WatcherFactsPorts,
  'settings' | 'paths' | 'clock' | 'certificateFile' | 'watchesCertificate'
>;
export type DockerPorts = Pick<WatcherFactsPorts, 'settings' | 'stackNames' | 'docker'>;
export type UpsPorts = Pick<WatcherFactsPorts, 'settings'>;
