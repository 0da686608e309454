/**
 * The destination port of `@appliance/backups` on this box: a plan's destination for the length of
 * a job is the registered backup disk, attached, mounted at `/mnt/disks/<label>` (mounted by the job when it was not, and unmounted again after; a disk
 * mounted by hand stays mounted), and a liveness check the job runs while restic writes, so a disk
 * that goes away is a clear failure, not a hang. A dead mount (the disk stopped answering) is taken
 * off whoever mounted it: at the end of the job, and at the start of the next one, which then mounts
 * the disk again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Destination, destinationLost, repositoryPath } from '@appliance/backups';
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
  const kernelName = path.basename(disk.device);
  const mounted = async () =>
    parseMountInfo(await fs.readFile(path.join(ctx.paths.procDir, 'self/mountinfo'), 'utf8')).some(
      (m) => m.target === real,
    );
  let lost = false;
  const alive = async (): Promise<boolean> => {
    const present = await fs.stat(path.join(ctx.paths.sysClassBlock, kernelName)).then(
      () => true,
      () => false,
    );
    const answered =
      present &&
      (await mounted()) &&
      (await withTimeout(
        fs.stat(real).then(
          () => true,
          () => false,
        ),
        5_000,
      )) === true;
    if (!answered) lost = true;
    return answered;
  };
  /**
   * A mount whose disk stopped answering is taken off the tree (a lazy unmount when a plain one
   * fails), so the disk mounts again once it answers and nothing writes into the mountpoint folder.
   */
  const takeOffDeadMount = async () => {
    if (await mounted()) {
      ctx.logger.warn('backup destination: taking off a dead mount', { label });
      const r = await ctx.runner.run('umount', [real], { timeoutMs: 60_000 }).catch(() => null);
      if (r?.exitCode !== 0)
        await ctx.runner.run('umount', ['-l', real], { timeoutMs: 60_000 }).catch(() => null);
    }
    await removeMountpoint(real);
  };
  let mountedHere = false;
  let isMounted = mountedTargets(disk).includes(mountpoint);
  if (isMounted && !(await alive())) {
    // mounted (by hand, or left by a run the disk died under) but not answering: mounted afresh
    await takeOffDeadMount();
    if (await mounted()) throw destinationLost(label);
    isMounted = false;
    lost = false;
  }
  if (!isMounted) {
    const r = await mountExternal(mountDeps(ctx, null), label);
    mountedHere = r.mounted;
  }
  return {
    label,
    mountpoint,
    real,
    mountedHere,
    filesystem: disk.filesystem,
    device: disk.device,
    repository: (plan) => ctx.paths.real(repositoryPath(mountpoint, plan)),
    alive,
    get lost() {
      return lost;
    },
    async close() {
      if (!mountedHere) {
        // the user's mount stays as it was, unless the disk died under it
        if (!(await mounted()) || (await alive())) return;
        await takeOffDeadMount();
        return;
      }
      try {
        await ejectExternal(mountDeps(ctx, null), label, { powerDown: false });
        return;
      } catch (err) {
        ctx.logger.warn('backup destination: unmount after the job failed', { label, error: String(err) });
      }
      // a disk that went away mid-run
      await takeOffDeadMount();
    },
  };
}
