/**
 * The destination of a plan on an appliance: the registered external backup disk
 * (`@appliance/external-disk`), attached, mounted at `/mnt/disks/<label>` for the length of a job
 * (mounted by the job when it was not, and unmounted again after; a disk mounted by hand stays
 * mounted), and a liveness check the job runs while restic writes, so a disk that goes away is a
 * clear failure, not a hang. A dead mount (the disk stopped answering) is taken off whoever
 * mounted it: at the end of the job, and at the start of the next one, which then mounts the disk
 * again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseMountInfo, refuse } from '@appliance/common';
import {
  ejectExternal,
  externalMountpoint,
  findRowDisk,
  type MountDeps,
  mountExternal,
  mountedTargets,
  removeMountpoint,
} from '@appliance/external-disk';
import { repositoryPath } from '../core/plan.ts';
import { destinationLost } from '../jobs/common.ts';
import type { Destination, DestinationResolver } from '../ports.ts';

export interface ExternalDestinationDeps {
  /** The external disks' own ports (registrations, inventory, runner, locks, log, mount root). */
  mount: MountDeps;
  /** Real path of `/proc` (the mount table: `<procDir>/self/mountinfo`). */
  procDir: string;
  /** The real path of a logical one. */
  real(logical: string): string;
}

const missing = (label: string) =>
  refuse(
    'backup_destination_missing',
    `The backup disk "${label}" is not attached: plug it in (or power it on), then run it again.`,
    { label },
  );

/** Refuses a `label` that is not a registered, attached backup destination; else its row and disk. */
export async function checkExternalDestination(deps: ExternalDestinationDeps, label: string) {
  const rows = await deps.mount.store.listRows();
  const row = rows.find((r) => r.label === label);
  if (!row)
    throw refuse(
      'backup_destination_unknown',
      `No external disk is registered as "${label}" any more: register the backup disk again, or change the plan's destination.`,
      { label },
    );
  if (!row.backupDestination)
    throw refuse(
      'not_a_backup_destination',
      `The external disk "${label}" is not marked as a backup destination: choose a disk registered as a backup destination.`,
      { label },
    );
  const inventory = await deps.mount.inventory.read();
  const match = findRowDisk(row, inventory.disks);
  if (match.status === 'missing') throw missing(label);
  if (match.status === 'ambiguous')
    throw refuse(
      'external_disk_ambiguous',
      `More than one disk answers to the backup disk "${label}" (${match.candidates.map((d) => d.device).join(', ')}): unplug all but one of them.`,
      { label },
    );
  return { row, disk: match.disk };
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref())]);

/** Opens the destination for a job that holds its backup group. */
export async function openExternalDestination(
  deps: ExternalDestinationDeps,
  label: string,
): Promise<Destination> {
  const { disk } = await checkExternalDestination(deps, label);
  const { mount } = deps;
  const mountpoint = externalMountpoint(label);
  const real = path.join(mount.mountRoot, label);
  const kernelName = path.basename(disk.device);
  const mounted = async () =>
    parseMountInfo(await fs.readFile(path.join(deps.procDir, 'self/mountinfo'), 'utf8')).some(
      (m) => m.target === real,
    );
  let lost = false;
  const alive = async (): Promise<boolean> => {
    const present = await fs.stat(path.join(mount.sysClassBlock, kernelName)).then(
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
      mount.log.warn('backup destination: taking off a dead mount', { label });
      const r = await mount.runner.run('umount', [real], { timeoutMs: 60_000 }).catch(() => null);
      if (r?.exitCode !== 0)
        await mount.runner.run('umount', ['-l', real], { timeoutMs: 60_000 }).catch(() => null);
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
    const r = await mountExternal(mount, label);
    mountedHere = r.mounted;
  }
  return {
    label,
    mountpoint,
    real,
    mountedHere,
    filesystem: disk.filesystem,
    device: disk.device,
    repository: (plan) => deps.real(repositoryPath(mountpoint, plan)),
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
        await ejectExternal(mount, label, { powerDown: false });
        return;
      } catch (err) {
        mount.log.warn('backup destination: unmount after the job failed', { label, error: String(err) });
      }
      // a disk that went away mid-run
      await takeOffDeadMount();
    },
  };
}

/** The destination port on registered external disks. */
export function externalDestinations(deps: ExternalDestinationDeps): DestinationResolver {
  return {
    open: (label) => openExternalDestination(deps, label),
    mounted: async (label) => {
      const { disk } = await checkExternalDestination(deps, label);
      return mountedTargets(disk).includes(externalMountpoint(label));
    },
  };
}
