import path from 'node:path';
import { AppError, badRequest, diskLockKey } from '@appliance/common';
import { mountedTargets, toExternalDisk } from '../core/external-disk.ts';
import { externalMountpoint, isValidLabel, LABEL_RULE } from '../core/label.ts';
import { checkMount, mountArgs, powerDownPlan, refuseSystemDisks, uuidClash } from '../core/mount.ts';
import { type ResolvedDisk, resolveLabel } from '../core/resolve.ts';
import type { ExternalDisk } from '../core/types.ts';
import { externalLabelLockKey } from '../keyed-lock.ts';
import {
  mountedUuid,
  prepareMountpoint,
  removeMountpoint,
  sysfsDevicePath,
  writeSysfs,
} from '../node/mount.ts';
import type { ExternalDiskDeps } from '../ports.ts';

/** What mount and eject need beyond the format's ports. */
export interface MountDeps
  extends Pick<ExternalDiskDeps, 'inventory' | 'store' | 'runner' | 'locks' | 'log'> {
  /** Real path of `/mnt/disks` (a disk is mounted at `<mountRoot>/<label>`). */
  mountRoot: string;
  /** Real path of `/sys/class/block` (to find a disk's place in the device tree). */
  sysClassBlock: string;
  /** Writes a sysfs attribute (power-down); default: the real file. */
  writeSysfs?(file: string, value: string): Promise<void>;
}

export interface EjectOutcome {
  disk: ExternalDisk;
  unmounted: boolean;
  poweredDown: boolean;
  /** What happened, for the administrator (why a disk was not powered down). */
  note: string;
}

async function resolveFresh(deps: MountDeps, label: string) {
  if (!isValidLabel(label)) throw badRequest([{ path: 'label', message: LABEL_RULE }]);
  const [inventory, rows, slots] = await Promise.all([
    deps.inventory.read(),
    deps.store.listRows(),
    deps.store.listArraySlots(),
  ]);
  return { inventory, rows, slots, resolved: resolveLabel(label, inventory.disks, rows) };
}

const busy = (label: string) => () =>
  new AppError(
    409,
    'disk_busy',
    `Another operation is using the external disk "${label}" right now: wait for it to finish, then try again.`,
    {
      label,
    },
  );

/**
 * `POST /disks/external/:label/mount`: mounts the disk's filesystem by UUID at
 * `/mnt/disks/<label>` with `nosuid,nodev`. Mounted there already: answered as it is. Takes the
 * disk's locks (never beside a format of it).
 */
export async function mountExternal(
  deps: MountDeps,
  label: string,
): Promise<{ disk: ExternalDisk; mounted: boolean }> {
  const first = await resolveFresh(deps, label);
  const device = first.resolved.disk.device;
  return deps.locks.tryRun([diskLockKey(device), externalLabelLockKey(label)], busy(label), async () => {
    const { inventory, slots, resolved } = await resolveFresh(deps, label);
    const dir = path.join(deps.mountRoot, label);
    const mountpoint = externalMountpoint(label);
    const decision = checkMount({ resolved, slots, mountpoint });
    if (decision.alreadyMounted) return { disk: listed(resolved, [mountpoint]), mounted: false };
    const clash = uuidClash(decision.fsUuid, inventory.disks);
    if (clash.length > 1)
      throw new AppError(
        409,
        'external_disk_ambiguous',
        `Two attached disks carry the filesystem ${decision.fsUuid} (${clash.join(', ')}), a cloned disk: unplug one of them, then mount again.`,
        { devices: clash },
      );
    const { created } = await prepareMountpoint(dir);
    const r = await deps.runner.run('mount', mountArgs(decision.fsUuid, dir), { timeoutMs: 120_000 });
    if (r.exitCode !== 0 || r.timedOut) {
      if (created) await removeMountpoint(dir);
      deps.log.error('external disk mount failed', {
        label,
        device,
        exitCode: r.exitCode,
        stderr: r.stderr.trim(),
      });
      throw new AppError(
        500,
        'mount_failed',
        `Mounting the external disk "${label}" (${device}) failed: check its filesystem (the service log has the mount error), then try again.`,
        { exitCode: r.exitCode },
      );
    }
    const uuid = await mountedUuid(deps.runner, dir);
    if (uuid !== decision.fsUuid) {
      await deps.runner.run('umount', [dir], { timeoutMs: 120_000 });
      if (created) await removeMountpoint(dir);
      throw new AppError(
        409,
        'disk_changed',
        `The filesystem mounted for "${label}" is not ${decision.fsUuid}: the disk changed while it was mounted. It was unmounted again; check the disk list and try again.`,
        { label },
      );
    }
    deps.log.info('external disk mounted', { label, device, mountpoint: dir });
    return { disk: listed(resolved, [mountpoint]), mounted: true };
  });
}

/**
 * `POST /disks/external/:label/eject`: sync, unmount (from `/mnt/disks/<label>` only: a mount
 * elsewhere is not this service's), then — with `powerDown` — power a USB disk down. An unmount
 * refused because files are open answers `409 disk_busy`.
 */
export async function ejectExternal(
  deps: MountDeps,
  label: string,
  options: { powerDown: boolean } = { powerDown: true },
): Promise<EjectOutcome> {
  const first = await resolveFresh(deps, label);
  const device = first.resolved.disk.device;
  return deps.locks.tryRun([diskLockKey(device), externalLabelLockKey(label)], busy(label), async () => {
    const { slots, resolved } = await resolveFresh(deps, label);
    const dir = path.join(deps.mountRoot, label);
    const { disk } = resolved;
    refuseSystemDisks(resolved, slots);
    const mountpoint = externalMountpoint(label);
    const targets = mountedTargets(disk);
    const elsewhere = targets.filter((t) => t !== mountpoint);
    if (elsewhere.length > 0)
      throw new AppError(
        409,
        'disk_mounted',
        `${device} is mounted at ${elsewhere.join(', ')}, not by this service: unmount it there first.`,
        { device, mountpoints: elsewhere },
      );
    let unmounted = false;
    if (targets.includes(mountpoint)) {
      await deps.runner.run('sync', ['-f', dir], { timeoutMs: 600_000 });
      const r = await deps.runner.run('umount', [dir], { timeoutMs: 600_000 });
      if (r.exitCode !== 0) {
        deps.log.warn('external disk unmount refused', { label, stderr: r.stderr.trim() });
        throw new AppError(
          409,
          'disk_busy',
          `The external disk "${label}" could not be unmounted: files on it are open (a shell, a copy, an app). Close them, then eject again.`,
          { label, mountpoint: dir },
        );
      }
      unmounted = true;
    }
    await removeMountpoint(dir);
    if (!options.powerDown)
      return {
        disk: listed(resolved, []),
        unmounted,
        poweredDown: false,
        note: unmounted ? 'unmounted' : 'was not mounted',
      };
    const plan = powerDownPlan(
      await sysfsDevicePath(deps.sysClassBlock, path.basename(device)),
      path.basename(device),
    );
    if (plan.kind === 'none')
      return {
        disk: listed(resolved, []),
        unmounted,
        poweredDown: false,
        note: `${unmounted ? 'Unmounted' : 'Not mounted'}; not powered down: ${plan.reason}.`,
      };
    const write = deps.writeSysfs ?? writeSysfs;
    try {
      await deps.runner.run('sync', [], { timeoutMs: 600_000 });
      await write(plan.scsiDelete, '1');
      if (plan.usbRemove) await write(plan.usbRemove, '1').catch(() => undefined);
    } catch (err) {
      deps.log.warn('external disk power-down failed', { label, error: String(err) });
      return {
        disk: listed(resolved, []),
        unmounted,
        poweredDown: false,
        note: `${unmounted ? 'Unmounted' : 'Not mounted'}; the kernel refused to power it down: unplug it once its light is off.`,
      };
    }
    deps.log.info('external disk ejected', { label, device });
    return {
      disk: toExternalDisk(label, resolved.row, null),
      unmounted,
      poweredDown: true,
      note: `${unmounted ? 'Unmounted' : 'Not mounted'} and powered down: it can be unplugged.`,
    };
  });
}

/** The listing entry of the disk with its mount state as it is now. */
function listed(resolved: ResolvedDisk, mountpoints: string[]): ExternalDisk {
  return toExternalDisk(resolved.label, resolved.row, { ...resolved.disk, mountpoints });
}
