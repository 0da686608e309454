/**
 * What every job of a plan (run, drill, restore) shares: the refusals, the plan opened with its
 * destination and a private temporary folder, restic on its repository, a restic command watched
 * for a destination that stops answering, and the failure that names a lost disk.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Refusal, refuse } from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import type { BackupPlan } from '../core/plan.ts';
import { openRestic, type Restic } from '../node/restic.ts';
import type { BackupPorts, Destination } from '../ports.ts';

/** How often a job checks that the destination still answers while restic writes. */
export const WATCH_MS = 2_000;
/** The logical root of the stacks' app data. */
export const APPDATA_ROOT = '/mnt/cache';
/** The configuration archive's name inside its snapshot. */
export const CONFIG_FILE = 'appliance-config.tar.zst';

export const planNotFound = (name: string): Refusal =>
  refuse(
    'backup_plan_not_found',
    `There is no backup plan named "${name}": list the backup plans and name one of them.`,
    { plan: name },
  );

export const passwordMissing = (plan: string): Refusal =>
  refuse(
    'repository_password_missing',
    `The repository password of plan ${plan} is not known on this box (the configuration import did not open secrets.age): import the archive again with its backup passphrase.`,
    { plan },
  );

/** The sentence of a job that lost its backup disk: what happened to which disk, and what to do. */
export const destinationLost = (label: string): Refusal =>
  refuse(
    'backup_destination_lost',
    `The backup disk "${label}" stopped answering (unplugged, powered off or failed): re-attach it, then run the job again.`,
    { label },
  );

/** What a disk that stopped answering makes a file operation fail with (xfs shut down, device gone). */
const DISK_GONE = new Set([
  'EIO',
  'ENXIO',
  'ENODEV',
  'ESTALE',
  'ENOTCONN',
  'EROFS',
  'EUCLEAN',
  'EFSCORRUPTED',
]);

/**
 * The error a backup, drill or restore ends with: its own refusals as they are; an unexpected
 * failure (EIO on a mkdir, say) while the disk was lost, or one with the errno of a lost disk,
 * becomes the sentence naming the disk (`backup_destination_lost`) instead of `internal`.
 */
export function asDestinationFailure(err: unknown, label: string, dest: Destination | null): unknown {
  if (err instanceof Refusal) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if ((typeof code === 'string' && DISK_GONE.has(code)) || dest?.lost) return destinationLost(label);
  return err;
}

/** Runs a job of a plan; an unexpected failure because the disk stopped answering names the disk. */
export async function onDestination<T>(
  label: string,
  work: (seen: { dest: Destination | null }) => Promise<T>,
): Promise<T> {
  const seen: { dest: Destination | null } = { dest: null };
  try {
    return await work(seen);
  } catch (err) {
    throw asDestinationFailure(err, label, seen.dest);
  }
}

/** A private (0700) temporary folder for one job; removed by `done`. */
export async function jobTempDir(
  ports: Pick<BackupPorts, 'paths'>,
  id: string,
): Promise<{ dir: string; done(): Promise<void> }> {
  const root = ports.paths.tmpDir;
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  const dir = path.join(root, `backup-${id}`);
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { mode: 0o700 });
  return { dir, done: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** restic on a plan's repository at `repository` (real path), with its password unsealed. */
export async function openPlanRestic(
  ports: Pick<BackupPorts, 'secrets' | 'runner' | 'paths' | 'settings'>,
  plan: string,
  repository: string,
  tmpDir: string,
): Promise<Restic> {
  const password = await ports.secrets.repositoryPassword(plan);
  if (password === null) throw passwordMissing(plan);
  return openRestic({
    runner: ports.runner,
    repository,
    password,
    tmpDir,
    cacheDir: ports.paths.resticCache,
    timeZone: ports.settings().timeZone,
  });
}

/**
 * The start of every job of a plan: the plan (its password known here), its destination opened
 * (phase `destination`) and a private temporary folder.
 */
export async function openPlanForJob(
  ports: BackupPorts,
  job: JobHandle,
  name: string,
  /** Gets the destination once it is open (for `asDestinationFailure`). */
  seen?: { dest: Destination | null },
): Promise<{ plan: BackupPlan; dest: Destination; tmp: { dir: string; done(): Promise<void> } }> {
  const plan = await ports.store.readPlan(name);
  if (!plan) throw planNotFound(name);
  if ((await ports.secrets.repositoryPassword(plan.name)) === null) throw passwordMissing(plan.name);
  job.phase('destination');
  const dest = await ports.destinations.open(plan.destination);
  if (seen) seen.dest = dest;
  const tmp = await jobTempDir(ports, job.id);
  return { plan, dest, tmp };
}

/** Runs one restic command while watching the destination; a lost destination stops it. */
export async function watched<T extends { cancelled: boolean }>(
  dest: Destination,
  job: JobHandle,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T & { lost: boolean }> {
  const lost = new AbortController();
  let gone = false;
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    void dest
      .alive()
      .then((ok) => {
        if (!ok && !gone) {
          gone = true;
          job.output(`the destination ${dest.mountpoint} stopped answering: stopping restic`);
          lost.abort();
        }
      })
      .finally(() => {
        checking = false;
      });
  }, WATCH_MS);
  try {
    const r = await fn(AbortSignal.any([job.signal, lost.signal]));
    return { ...r, lost: gone };
  } finally {
    clearInterval(timer);
  }
}
