/**
 * A plan's destination for the length of a job: the registered backup disk, attached, mounted at
 * `/mnt/disks/<label>` (mounted by the job when it was not, and unmounted again after; a disk
 * mounted by hand stays mounted), and a liveness check the job runs while restic writes, so a disk
 * that goes away is a clear failure, not a hang.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { repositoryPath } from '@appliance/backups';
import { AppError, parseMountInfo } from '@appliance/common';
import {
  ejectExternal,
  externalMountpoint,
  findRowDisk,
  mountExternal,
  mountedTargets,
  removeMountpoint,
} from '@appliance/external-disk';
import type { AppContext } from '../../context.ts';
import { mountDeps } from '../external-disks/deps.ts';
import { createExternalDiskStore } from '../external-disks/store.ts';

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
  /** Still attached and mounted, and the filesystem answers (a stat within 5 s). */
  alive(): Promise<boolean>;
  /** Unmounts it when this job mounted it (never powers it down: the next run needs it). */
  close(): Promise<void>;
}

const missing = (label: string) =>
  new AppError(
    409,
    'backup_destination_missing',
    `The backup disk "${label}" is not attached: plug it in (or power it on), then run it again.`,
    { label },
  );

/** Throws the refusal when `label` is not a registered, attached backup destination. */
export async function checkDestination(ctx: AppContext, label: string) {
  const rows = await createExternalDiskStore(ctx, null).listRows();
  const row = rows.find((r) => r.label === label);
  if (!row)
    throw new AppError(
      409,
      'backup_destination_unknown',
      `No external disk is registered as "${label}" any more: register the backup disk again (POST /api/v1/disks/external), or change the plan's destination.`,
      { label },
    );
  if (!row.backupDestination)
    throw new AppError(
      409,
      'not_a_backup_destination',
      `The external disk "${label}" is not marked as a backup destination: choose a disk registered with backupDestination: true.`,
      { label },
    );
  const inventory = await ctx.inventory.read();
  const match = findRowDisk(row, inventory.disks);
  if (match.status === 'missing') throw missing(label);
  if (match.status === 'ambiguous')
    throw new AppError(
      409,
      'external_disk_ambiguous',
      `More than one disk answers to the backup disk "${label}" (${match.candidates.map((d) => d.device).join(', ')}): unplug all but one of them.`,
      { label },
    );
  return { row, disk: match.disk };
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref())]);

/** Opens the destination for a job that holds its backup group. */
export async function openDestination(ctx: AppContext, label: string): Promise<Destination> {
  const { disk } = await checkDestination(ctx, label);
  const mountpoint = externalMountpoint(label);
  const real = path.join(ctx.paths.externalDisksDir, label);
  let mountedHere = false;
  if (!mountedTargets(disk).includes(mountpoint)) {
    const r = await mountExternal(mountDeps(ctx, null), label);
    mountedHere = r.mounted;
  }
  const kernelName = path.basename(disk.device);
  const alive = async (): Promise<boolean> => {
    const present = await fs.stat(path.join(ctx.paths.sysClassBlock, kernelName)).then(
      () => true,
      () => false,
    );
    if (!present) return false;
    const mounts = parseMountInfo(await fs.readFile(path.join(ctx.paths.procDir, 'self/mountinfo'), 'utf8'));
    if (!mounts.some((m) => m.target === real)) return false;
    const answered = await withTimeout(
      fs.stat(real).then(
        () => true,
        () => false,
      ),
      5_000,
    );
    return answered === true;
  };
  return {
    label,
    mountpoint,
    real,
    mountedHere,
    filesystem: disk.filesystem,
    device: disk.device,
    repository: (plan) => ctx.paths.real(repositoryPath(mountpoint, plan)),
    alive,
    async close() {
      if (!mountedHere) return;
      try {
        await ejectExternal(mountDeps(ctx, null), label, { powerDown: false });
        return;
      } catch (err) {
        ctx.logger.warn('backup destination: unmount after the job failed', { label, error: String(err) });
      }
      // A disk that went away mid-run: its dead mount is taken off the tree so a re-attached disk
      // mounts again, and nothing can write into the mountpoint folder.
      const r = await ctx.runner.run('umount', [real], { timeoutMs: 60_000 }).catch(() => null);
      if (r?.exitCode !== 0)
        await ctx.runner.run('umount', ['-l', real], { timeoutMs: 60_000 }).catch(() => null);
      await removeMountpoint(real);
    },
  };
}
