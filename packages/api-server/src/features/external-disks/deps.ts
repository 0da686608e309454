import { destinationGroup } from '@appliance/backups';
import type { ExternalDiskDeps, GuardPorts, MountDeps } from '@appliance/external-disk';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { createExternalDiskStore } from './store.ts';

/** The package, loaded by the first request that needs it (probes, mkfs, wipefs runners). */
export const operations = () => import('@appliance/external-disk');
type Operations = Awaited<ReturnType<typeof operations>>;

/**
 * The backup-group hold of an external disk (`@appliance/backups`' group of its label) and the
 * progress events of its operations.
 */
function guardPorts(ctx: AppContext): GuardPorts {
  return {
    holdBackups: (label, what) => ctx.jobs.hold([destinationGroup(label)], { ...what, target: label }),
    openProgress: (operation, target) => ctx.events.progress(ctx.random.uuid(), operation, target),
  };
}

/** The ports of `@appliance/external-disk`, wired to the server's context for one request. */
export function externalDiskDeps(
  ctx: AppContext,
  actor: Actor | null,
  ops: Operations,
): ExternalDiskDeps & GuardPorts {
  return {
    inventory: ctx.inventory,
    store: createExternalDiskStore(ctx, actor),
    runner: ctx.runner,
    locks: ctx.locks,
    clock: ctx.clock,
    log: ctx.logger,
    ...ops.deviceFiles(ctx.paths.devDir),
    ...guardPorts(ctx),
  };
}

/** The ports of mount and eject (`/mnt/disks/<label>` under the host root, sysfs for power-down). */
export function mountDeps(ctx: AppContext, actor: Actor | null): MountDeps & GuardPorts {
  return {
    inventory: ctx.inventory,
    store: createExternalDiskStore(ctx, actor),
    runner: ctx.runner,
    locks: ctx.locks,
    log: ctx.logger,
    mountRoot: ctx.paths.externalDisksDir,
    sysClassBlock: ctx.paths.sysClassBlock,
    ...guardPorts(ctx),
  };
}
