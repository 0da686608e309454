/**
 * Reading a plan's repository outside a job (the snapshot list, a configuration archive out of a
 * snapshot): beside a job of the same disk, which has it mounted; otherwise holding the disk's group
 * (never beside a format) and mounting it for the read only.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  CONFIG_FILE,
  type Destination,
  destinationGroup,
  jobTempDir,
  openPlanRestic,
  type PartRef,
  partOfTags,
  passwordMissing,
  type Restic,
  repositoryPath,
  rootsOfTags,
} from '@appliance/backups';
import { AppError, isoMillis } from '@appliance/common';
import { externalMountpoint, mountedTargets } from '@appliance/external-disk';
import type { AppContext } from '../../context.ts';
import { jobRunning } from '@appliance/jobs';
import { backupPorts } from './deps.ts';
import { checkDestination, openDestination } from './destination.ts';
import { recordSnapshot, type StoredPlan, snapshotSizes } from './store.ts';

/** Snapshot sizes computed per listing (`restic stats`) when a run here did not record them. */
export const SIZES_PER_LISTING = 25;

export async function withRepository<T>(
  ctx: AppContext,
  plan: StoredPlan,
  fn: (restic: Restic) => Promise<T>,
): Promise<T> {
  if (plan.sealedPassword === null) throw passwordMissing(plan.name);
  const group = destinationGroup(plan.destination);
  const holder = ctx.jobs.busy([group]);
  let release: (() => void) | null = null;
  let dest: Destination | null = null;
  if (holder) {
    const { disk } = await checkDestination(ctx, plan.destination);
    if (!mountedTargets(disk).includes(externalMountpoint(plan.destination)))
      throw jobRunning({ ...holder, cancellable: ctx.jobs.cancellable(holder.jobId) });
  } else {
    release = ctx.jobs.hold([group], {
      type: 'backups.read',
      target: plan.name,
      title: 'reading the backups',
    });
  }
  const id = randomUUID();
  try {
    if (!holder) dest = await openDestination(ctx, plan.destination);
    const ports = backupPorts(ctx);
    const tmp = await jobTempDir(ports, id);
    try {
      const repository = ctx.paths.real(repositoryPath(externalMountpoint(plan.destination), plan.name));
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

/** `GET /backups/snapshots?plan=`: restic's own list, newest first, with sizes. */
export async function listSnapshots(ctx: AppContext, plan: StoredPlan): Promise<SnapshotView[]> {
  return withRepository(ctx, plan, async (restic) => {
    if (!(await restic.exists())) return [];
    const { run, snapshots } = await restic.snapshots();
    if (run.errorLine !== null)
      throw new AppError(
        502,
        'repository_unreadable',
        `restic could not read the repository: ${run.errorLine}`,
      );
    const sizes = snapshotSizes(ctx.db, plan.name);
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
          const row = {
            id: s.shortId,
            plan: plan.name,
            part: part ? (part.kind === 'config' ? 'config' : `${part.kind}:${part.name}`) : 'other',
            time: isoMillis(new Date(s.time)),
            ...size,
          };
          await ctx.writes.run((db) => recordSnapshot(db, row));
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
  ctx: AppContext,
  plan: StoredPlan,
  snapshot: string,
): Promise<{ file: string; time: string; done(): Promise<void> }> {
  const out = await jobTempDir(backupPorts(ctx), `config-${randomUUID()}`);
  try {
    const time = await withRepository(ctx, plan, async (restic) => {
      const { run, snapshots } = await restic.snapshots();
      if (run.errorLine !== null)
        throw new AppError(
          502,
          'repository_unreadable',
          `restic could not read the repository: ${run.errorLine}`,
        );
      const snap = snapshots.find((s) => s.id.startsWith(snapshot));
      if (!snap)
        throw new AppError(404, 'snapshot_not_found', `Plan ${plan.name} has no snapshot ${snapshot}.`, {
          snapshot,
        });
      if (partOfTags(snap.tags)?.kind !== 'config')
        throw new AppError(
          409,
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
        throw new AppError(500, 'restore_failed', `restic could not restore the archive: ${r.errorLine}`);
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
