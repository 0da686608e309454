/**
 * Reading a plan's repository outside a job (the snapshot list, a configuration archive out of a
 * snapshot): beside a job of the same disk, which has it mounted; otherwise holding the disk's group
 * (never beside a format) and mounting it for the read only.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isoMillis, refuse } from '@appliance/common';
import { externalMountpoint } from '@appliance/external-disk';
import { jobRunning } from '@appliance/jobs';
import { type PartRef, partKey, partOfTags, rootsOfTags } from '../core/parts.ts';
import { type BackupPlan, destinationGroup, repositoryPath } from '../core/plan.ts';
import { CONFIG_FILE, jobTempDir, openPlanRestic, passwordMissing, planNotFound } from '../jobs/common.ts';
import type { Restic } from '../node/restic.ts';
import type { BackupPorts, Destination, RepositoryHolds } from '../ports.ts';

/** Snapshot sizes computed per listing (`restic stats`) when a run here did not record them. */
export const SIZES_PER_LISTING = 25;

/** The ports a read of a repository needs: the jobs' holds on top of the jobs' own ports. */
export type ReadPorts = BackupPorts & { holds: RepositoryHolds };

/** Runs `fn` with restic on the plan's repository, the disk mounted for it when no job has it. */
export async function withRepository<T>(
  ports: ReadPorts,
  plan: BackupPlan,
  fn: (restic: Restic) => Promise<T>,
): Promise<T> {
  if ((await ports.secrets.repositoryPassword(plan.name)) === null) throw passwordMissing(plan.name);
  const group = destinationGroup(plan.destination);
  const holder = ports.holds.busy([group]);
  let release: (() => void) | null = null;
  let dest: Destination | null = null;
  if (holder) {
    if (!(await ports.destinations.mounted(plan.destination)))
      throw jobRunning({ ...holder, cancellable: ports.holds.cancellable(holder.jobId) });
  } else {
    release = ports.holds.hold([group], {
      type: 'backups.read',
      target: plan.name,
      title: 'reading the backups',
    });
  }
  try {
    if (!holder) dest = await ports.destinations.open(plan.destination);
    const tmp = await jobTempDir(ports, randomUUID());
    try {
      const repository = ports.paths.real(repositoryPath(externalMountpoint(plan.destination), plan.name));
      const restic = await openPlanRestic(ports, plan.name, repository, tmp.dir);
      try {
        return await fn(restic);
      } finally {
        await restic.close();
      }
    } finally {
      await tmp.done();
    }
  } finally {
    await dest?.close();
    release?.();
  }
}

export interface SnapshotView {
  id: string;
  shortId: string;
  time: string;
  part: PartRef | null;
  folders: string[];
  hostname: string;
  sizeBytes: number | null;
  dataAddedBytes: number | null;
  files: number | null;
}

const unreadable = (line: string) =>
  refuse('repository_unreadable', `restic could not read the repository: ${line}`);

/** A plan's snapshots as restic lists them, newest first, with sizes (computed when unknown). */
export async function listSnapshots(ports: ReadPorts, plan: BackupPlan): Promise<SnapshotView[]> {
  return withRepository(ports, plan, async (restic) => {
    if (!(await restic.exists())) return [];
    const { run, snapshots } = await restic.snapshots();
    if (run.errorLine !== null) throw unreadable(run.errorLine);
    const sizes = await ports.store.snapshotSizes(plan.name);
    const newest = [...snapshots].sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
    let computed = 0;
    const out: SnapshotView[] = [];
    for (const s of newest) {
      let size = sizes.get(s.shortId) ?? null;
      if (size === null && computed < SIZES_PER_LISTING) {
        computed++;
        const stats = await restic.restoreSize(s.id);
        if (stats) {
          size = { sizeBytes: stats.bytes, dataAddedBytes: null, files: stats.files };
          const part = partOfTags(s.tags);
          await ports.store.recordSnapshot({
            id: s.shortId,
            plan: plan.name,
            part: part ? partKey(part) : 'other',
            time: isoMillis(new Date(s.time)),
            ...size,
          });
        }
      }
      out.push({
        id: s.id,
        shortId: s.shortId,
        time: isoMillis(new Date(s.time)),
        part: partOfTags(s.tags),
        folders: rootsOfTags(s.tags),
        hostname: s.hostname,
        sizeBytes: size?.sizeBytes ?? null,
        dataAddedBytes: size?.dataAddedBytes ?? null,
        files: size?.files ?? null,
      });
    }
    return out;
  });
}

/**
 * The configuration archive a snapshot holds, restored into a private temp folder (the caller
 * streams it and calls `done`). Refused for a snapshot of another part.
 */
export async function configArchiveOf(
  ports: ReadPorts,
  plan: BackupPlan,
  snapshot: string,
): Promise<{ file: string; time: string; done(): Promise<void> }> {
  const out = await jobTempDir(ports, `config-${randomUUID()}`);
  try {
    const time = await withRepository(ports, plan, async (restic) => {
      const { run, snapshots } = await restic.snapshots();
      if (run.errorLine !== null) throw unreadable(run.errorLine);
      const snap = snapshots.find((s) => s.id.startsWith(snapshot));
      if (!snap)
        throw refuse('snapshot_not_found', `Plan ${plan.name} has no snapshot ${snapshot}.`, { snapshot });
      if (partOfTags(snap.tags)?.kind !== 'config')
        throw refuse(
          'snapshot_part_mismatch',
          `Snapshot ${snap.shortId} does not hold the configuration: choose a snapshot of the configuration.`,
          { snapshot: snap.shortId },
        );
      const r = await restic.restore({
        snapshot: snap.id,
        target: out.dir,
        include: [`/${CONFIG_FILE}`],
        verify: true,
      });
      if (r.errorLine !== null)
        throw refuse('restore_failed', `restic could not restore the archive: ${r.errorLine}`);
      return snap.time;
    });
    const file = path.join(out.dir, CONFIG_FILE);
    await fs.access(file);
    return { file, time, done: out.done };
  } catch (err) {
    await out.done();
    throw err;
  }
}

async function readPlan(ports: ReadPorts, name: string): Promise<BackupPlan> {
  const plan = await ports.store.readPlan(name);
  if (!plan) throw planNotFound(name);
  return plan;
}

/** A plan's snapshots with where its repository is (the snapshot list of the API). */
export async function snapshotList(ports: ReadPorts, name: string) {
  const plan = await readPlan(ports, name);
  return {
    plan: plan.name,
    destination: plan.destination,
    repository: repositoryPath(externalMountpoint(plan.destination), plan.name),
    snapshots: await listSnapshots(ports, plan),
  };
}

/** `appliance-config-<plan>-<YYYYMMDDTHHMMSS>Z.tar.zst`: the download name of a snapshot's archive. */
export function configArchiveName(plan: string, time: string): string {
  const stamp = time.replace(/[-:]/g, '').slice(0, 15);
  return `appliance-config-${plan}-${stamp}Z.tar.zst`;
}

/** The configuration archive a snapshot of plan `name` holds, with its download name. */
export async function snapshotConfigArchive(ports: ReadPorts, name: string, snapshot: string) {
  const plan = await readPlan(ports, name);
  const archive = await configArchiveOf(ports, plan, snapshot);
  return { ...archive, fileName: configArchiveName(plan.name, archive.time) };
}
