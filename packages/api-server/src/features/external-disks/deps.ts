import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ExternalDiskDeps, MountDeps } from '@appliance/external-disk';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { createExternalDiskStore } from './store.ts';

/** The ports of `@appliance/external-disk`, wired to the server's context for one request. */
export function externalDiskDeps(ctx: AppContext, actor: Actor | null): ExternalDiskDeps {
  return {
    inventory: ctx.inventory,
    store: createExternalDiskStore(ctx, actor),
    runner: ctx.runner,
    locks: ctx.locks,
    clock: ctx.clock,
    log: ctx.logger,
    realpath: (device) => realDevicePath(ctx, device),
    holdDevice: (device) => holdDevice(ctx, device),
  };
}

/** The ports of mount and eject (`/mnt/disks/<label>` under the host root, sysfs for power-down). */
export function mountDeps(ctx: AppContext, actor: Actor | null): MountDeps {
  return {
    inventory: ctx.inventory,
    store: createExternalDiskStore(ctx, actor),
    runner: ctx.runner,
    locks: ctx.locks,
    log: ctx.logger,
    mountRoot: ctx.paths.externalDisksDir,
    sysClassBlock: ctx.paths.sysClassBlock,
  };
}

/** A read-only, non-blocking handle on the disk (its block cache stays warm); closed by the release. */
function holdDevice(ctx: AppContext, device: string): () => void {
  let fd: number;
  try {
    fd = fsSync.openSync(hostDevice(ctx, device), fsSync.constants.O_RDONLY | fsSync.constants.O_NONBLOCK);
  } catch {
    return () => undefined;
  }
  return () => fsSync.closeSync(fd);
}

/** The host path of a logical `/dev/…` device path (the device directory of the host paths). */
const hostDevice = (ctx: AppContext, device: string): string =>
  path.join(ctx.paths.devDir, path.relative('/dev', device));

/** realpath of a logical `/dev/…` path, read under the host root and reported logically again. */
async function realDevicePath(ctx: AppContext, device: string): Promise<string> {
  const devDir = ctx.paths.devDir;
  const real = await fs.realpath(hostDevice(ctx, device));
  return devDir === '/dev' ? real : path.join('/dev', path.relative(devDir, real));
}
