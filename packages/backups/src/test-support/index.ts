/**
 * In-memory ports for `@appliance/backups` (tests and daemons that keep their plans elsewhere): a
 * plan store, passwords in a map, paths under one root folder (`/mnt/user/media` is
 * `<root>/mnt/user/media`), a destination that is whatever is at `<root>/mnt/disks/<label>` (a
 * folder, or a disk the caller mounted there), no stacks, and an event recorder. The command runner
 * is the real one unless one is given.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type CommandRunner, createCommandRunner, refuse } from '@appliance/common';
import type { RaisedEvent } from '../core/messages.ts';
import {
  type BackupPlan,
  DEFAULT_DRILL,
  DEFAULT_RETENTION,
  type PlanSpec,
  repositoryPath,
} from '../core/plan.ts';
import type {
  BackupPaths,
  BackupPorts,
  BackupStacks,
  BackupStore,
  Destination,
  DestinationResolver,
  PlanRunState,
  PlanStatePatch,
  SnapshotRecord,
  SnapshotSize,
} from '../ports.ts';

export class MemoryBackupStore implements BackupStore {
  readonly plans = new Map<string, BackupPlan>();
  readonly states = new Map<string, PlanRunState>();
  readonly snapshots = new Map<string, SnapshotRecord>();
  /** Ends of runs and drills, in order. */
  readonly ends: { kind: 'run' | 'drill'; plan: string; at: string; jobId: string; state: string }[] = [];

  readPlan = (name: string) => this.plans.get(name) ?? null;
  readState = (plan: string) => this.states.get(plan) ?? null;

  private state(plan: string): PlanRunState {
    let s = this.states.get(plan);
    if (!s) {
      s = { lastRetentionAt: null, lastPruneAt: null, forgottenSincePrune: 0, drillCount: 0 };
      this.states.set(plan, s);
    }
    return s;
  }

  async updateState(plan: string, patch: PlanStatePatch): Promise<void> {
    Object.assign(this.state(plan), patch);
  }
  async recordSnapshot(row: SnapshotRecord): Promise<void> {
    this.snapshots.set(row.id, row);
  }
  snapshotSizes(plan: string): Map<string, SnapshotSize> {
    return new Map(
      [...this.snapshots.values()]
        .filter((s) => s.plan === plan)
        .map((s) => [s.id, { sizeBytes: s.sizeBytes, dataAddedBytes: s.dataAddedBytes, files: s.files }]),
    );
  }
  async recordRetention(plan: string, removed: readonly string[], patch: PlanStatePatch): Promise<void> {
    for (const id of removed) this.snapshots.delete(id);
    await this.updateState(plan, patch);
  }
  async recordRun(plan: string, at: string, jobId: string, state: string): Promise<void> {
    this.ends.push({ kind: 'run', plan, at, jobId, state });
  }
  async recordDrill(plan: string, at: string, jobId: string, state: string): Promise<void> {
    this.state(plan).drillCount += 1;
    this.ends.push({ kind: 'drill', plan, at, jobId, state });
  }
}

/** A plan with the defaults of the API for what `spec` leaves out. */
export function memoryPlan(
  name: string,
  spec: Partial<PlanSpec> & Pick<PlanSpec, 'destination'>,
): BackupPlan {
  const at = new Date().toISOString();
  return {
    name,
    enabled: true,
    configuration: false,
    stacks: [],
    shares: [],
    schedule: { kind: 'daily', time: '03:30' },
    retention: DEFAULT_RETENTION,
    drill: DEFAULT_DRILL,
    ...spec,
    createdAt: at,
    updatedAt: at,
  };
}

/** Logical paths under `root` (`/mnt/user/x` → `<root>/mnt/user/x`). */
export function rootedPaths(root: string): BackupPaths {
  return {
    real: (logical) => path.join(root, logical),
    logical: (real) => {
      const rel = path.relative(root, real);
      return rel.startsWith('..') || path.isAbsolute(rel) ? null : `/${rel}`;
    },
    tmpDir: path.join(root, 'var/lib/appliance/tmp'),
    resticCache: null,
  };
}

/**
 * Destinations at `/mnt/disks/<label>` under the paths' root: the folder must exist (a disk the
 * caller mounted there, or a plain folder); it is alive while it answers a stat.
 */
export function folderDestinations(
  paths: BackupPaths,
  filesystem: string | null = null,
): DestinationResolver {
  return {
    mounted: (label) =>
      fs.stat(paths.real(`/mnt/disks/${label}`)).then(
        (st) => st.isDirectory(),
        () => false,
      ),
    async open(label) {
      const mountpoint = `/mnt/disks/${label}`;
      const real = paths.real(mountpoint);
      const st = await fs.stat(real).catch(() => null);
      if (!st?.isDirectory())
        throw refuse(
          'backup_destination_missing',
          `The backup disk "${label}" is not attached: plug it in (or power it on), then run it again.`,
          { label },
        );
      let lost = false;
      const dest: Destination = {
        label,
        mountpoint,
        real,
        mountedHere: false,
        filesystem,
        device: real,
        repository: (plan) => paths.real(repositoryPath(mountpoint, plan)),
        alive: async () => {
          const ok = await fs.stat(real).then(
            () => true,
            () => false,
          );
          if (!ok) lost = true;
          return ok;
        },
        get lost() {
          return lost;
        },
        close: async () => undefined,
      };
      return dest;
    },
  };
}

/** A box without stacks: a plan that names one backs up nothing of it. */
export const noStacks: BackupStacks = {
  bindSources: async () => [],
  running: async () => [],
  stop: async () => undefined,
  start: async () => undefined,
  exists: async () => false,
  pauseWatch: () => () => undefined,
};

export interface MemoryBackupPorts extends BackupPorts {
  store: MemoryBackupStore;
  /** Repository passwords by plan. */
  passwords: Map<string, string>;
  /** Events the jobs raised. */
  raised: RaisedEvent[];
  logged: { level: string; message: string; fields?: Record<string, unknown> }[];
}

/** Every port in memory, with paths under `root` and the real command runner (restic). */
export function memoryBackupPorts(options: {
  root: string;
  runner?: CommandRunner;
  stacks?: BackupStacks;
  hostname?: string;
  timeZone?: string;
  now?: () => Date;
}): MemoryBackupPorts {
  const paths = rootedPaths(options.root);
  const passwords = new Map<string, string>();
  const raised: RaisedEvent[] = [];
  const logged: MemoryBackupPorts['logged'] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void logged.push({ level, message, ...(fields ? { fields } : {}) });
  return {
    store: new MemoryBackupStore(),
    passwords,
    raised,
    logged,
    secrets: { repositoryPassword: (plan) => passwords.get(plan) ?? null },
    settings: () => ({ hostname: options.hostname ?? 'test-box', timeZone: options.timeZone ?? 'UTC' }),
    destinations: folderDestinations(paths),
    stacks: options.stacks ?? noStacks,
    paths,
    configArchive: null,
    events: {
      raise: async (e) => {
        raised.push(e);
      },
    },
    runner: options.runner ?? createCommandRunner(),
    clock: { now: options.now ?? (() => new Date()) },
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
  };
}
export * from './plan-admin.ts';
