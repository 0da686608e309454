/**
 * The mover's operations behind the API (issue 37), over ports: which disks and shares a run works
 * on (from the array's slots and the share rows), its status view (last run, running job, next
 * run), a run on demand, and the settings' replacement with its audit row. The server implements
 * the ports over SQLite and its job runner (`api-server/src/features/mover/deps.ts`).
 */
import fs from 'node:fs/promises';
import type { JobState, JobView } from '@appliance/jobs';
import { hasCacheDisk } from '../access/branches.ts';
import type { MoverResult } from './core/report.ts';
import { MOVER_TARGET, type MoverRunParams, moverJob, moverNoCache } from './job.ts';
import type { MoverShare } from './node/mover.ts';
import type { MoverDisk, MoverSettings } from './ports.ts';

/** An array slot as the mover reads it. */
export interface MoverSlot {
  role: string;
  roleIndex: number;
  mountpoint: string;
  /** Non-null while the disk is being emptied or removed: it takes no files. */
  removalState: string | null;
}

/** A share row as the mover reads it. */
export interface MoverShareRow extends MoverShare {
  cacheMode: string;
}

/**
 * The cache and the data disks that take files, in the array's order (by role index); data disks
 * with a removal state neither take files nor are checked. Null without a cache.
 */
export function moverDisks(
  slots: readonly MoverSlot[],
  real: (mountpoint: string) => string,
): { cache: MoverDisk; data: MoverDisk[] } | null {
  const disk = (mountpoint: string) => ({ mountpoint, path: real(mountpoint) });
  const cache = slots.find((s) => s.role === 'cache');
  if (!cache) return null;
  const data = slots
    .filter((s) => s.role === 'data' && s.removalState === null)
    .sort((a, b) => a.roleIndex - b.roleIndex);
  return { cache: disk(cache.mountpoint), data: data.map((d) => disk(d.mountpoint)) };
}

/**
 * Whether a disk is there now (`MoverJobDeps.present`): mounted, or, where the disks are plain
 * directories (a sandbox outside lab mode), an existing directory at its real path.
 */
export const diskPresence =
  (o: { plainDirectories: boolean; isMounted(mountpoint: string): Promise<boolean> }) =>
  (disk: MoverDisk): Promise<boolean> =>
    o.plainDirectories
      ? fs.stat(disk.path).then(
          (st) => st.isDirectory(),
          () => false,
        )
      : o.isMounted(disk.mountpoint);

/** The `cache-then-move` shares (the ones the mover moves) and their create policies. */
export const moverShares = (shares: readonly MoverShareRow[]): MoverShare[] =>
  shares
    .filter((s) => s.cacheMode === 'cache-then-move')
    .map((s) => ({ name: s.name, createPolicy: s.createPolicy }));

type MoverView = JobView<MoverRunParams, MoverResult>;

/** The job runner as the mover's operations use it (the shared runner satisfies it). */
export interface MoverJobControl<A> {
  runningOf(kind: typeof moverJob): MoverView[];
  latest(kind: typeof moverJob, states: readonly JobState[]): MoverView | null;
  start(
    kind: typeof moverJob,
    params: MoverRunParams,
    options: { target: string; actor: A },
  ): Promise<{ view: MoverView }>;
}

/** What a settings write sees inside its transaction. */
export interface MoverSettingsTx {
  read(): MoverSettings;
  write(settings: MoverSettings): void;
  audit(entry: { operation: string; target: string; details: Record<string, unknown> }): void;
}

/** The ports of the mover's operations, for one request (the server binds the actor). */
export interface MoverServicePorts<A> {
  slots(): MoverSlot[];
  shares(): MoverShareRow[];
  settings(): MoverSettings;
  /** Runs `fn` in one write transaction (the row and its audit commit together). */
  writeSettings(fn: (tx: MoverSettingsTx) => void): Promise<void>;
  jobs: MoverJobControl<A>;
  actor: A;
  /** When the daily run is next due (ISO), or null. */
  nextRun(): string | null;
}

/** A finished run as `GET /mover` shows it (null when the mover never ran). */
export function moverLastRun(view: MoverView | null) {
  if (!view) return null;
  const r = view.result;
  return {
    jobId: view.id,
    state: view.state,
    trigger: view.trigger,
    startedAt: view.startedAt,
    endedAt: view.endedAt,
    movedFiles: r?.movedFiles ?? null,
    movedBytes: r?.movedBytes ?? null,
    skippedCount: r?.skippedCount ?? null,
    skippedByReason: r?.skippedByReason ?? null,
    skipped: r?.skipped ?? [],
    error: view.error ? { code: view.error.code, message: view.error.message } : null,
  };
}

const ENDED: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'interrupted', 'blocked'];

/** The mover's status: configured (a cache exists), its shares, settings, running job, last and next run. */
export function moverStatus<A>(ports: MoverServicePorts<A>) {
  return {
    configured: hasCacheDisk(ports.slots()),
    shares: moverShares(ports.shares()).map((s) => s.name),
    settings: ports.settings(),
    running: ports.jobs.runningOf(moverJob)[0] ?? null,
    lastRun: moverLastRun(ports.jobs.latest(moverJob, ENDED)),
    nextRun: ports.nextRun(),
  };
}

/** Starts a run now (the settings' verification unless given); refused (`no_cache`) without a cache. */
export async function runMoverNow<A>(
  ports: MoverServicePorts<A>,
  request: { verify?: MoverSettings['verify'] | undefined },
): Promise<MoverView> {
  if (!hasCacheDisk(ports.slots())) throw moverNoCache();
  const verify = request.verify ?? ports.settings().verify;
  return (await ports.jobs.start(moverJob, { verify }, { target: MOVER_TARGET, actor: ports.actor })).view;
}

/** Replaces the settings; the audit row names the fields that changed. Returns them as stored. */
export async function setMoverSettings<A>(
  ports: MoverServicePorts<A>,
  settings: MoverSettings,
): Promise<MoverSettings> {
  await ports.writeSettings((tx) => {
    const before = tx.read();
    tx.write(settings);
    const changed = Object.fromEntries(
      Object.entries(settings).filter(([k, val]) => before[k as keyof MoverSettings] !== val),
    );
    tx.audit({ operation: 'settings.mover', target: 'mover', details: { changed } });
  });
  return ports.settings();
}
