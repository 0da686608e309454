/**
 * The disks feature's wiring: the context's database, locks, runner and parity sync as
 * @appliance/array-planner's ports, and the disk jobs registered on the job runner.
 */
import {
  type ArrayPorts,
  type DiskJobPorts,
  type MountpointGuard,
  registerDiskJobs,
  SlotGuards,
} from '@appliance/array-planner';
import { createSnapraid, syncParity } from '@appliance/parity';
import type { AppContext } from '../../context.ts';
import { parityJobDeps } from '../parity/deps.ts';
import { readParityState } from '../parity/store.ts';
import type { Actor } from '../../services/audit.ts';
import { hostTools } from '../ports.ts';
import { arrayRecords, slotStore } from './store.ts';

const cache = new WeakMap<AppContext, DiskJobPorts>();

/** The disk jobs' ports over the context (one object per context). */
export function diskJobPorts(ctx: AppContext): DiskJobPorts {
  const known = cache.get(ctx);
  if (known) return known;
  const ports: DiskJobPorts = {
    ...hostTools(ctx),
    paths: ctx.paths,
    inventory: ctx.inventory,
    slots: slotStore(ctx),
    snapraid: (configFile) => createSnapraid({ runner: ctx.runner, configFile }),
    parity: {
      sync: (job, o) => syncParity(parityJobDeps(ctx), job, { force: false, ...o }),
      lastDiff: () => readParityState(ctx.db).lastDiff,
    },
    locks: ctx.locks,
    generated: ctx.generated,
    labMode: ctx.config.lab.enabled,
  };
  cache.set(ctx, ports);
  return ports;
}

/** What starting a disk job reads (plans.ts). */
export const diskJobStartPorts = (ctx: AppContext) => ({
  ...diskJobPorts(ctx),
  newUuid: () => ctx.random.uuid(),
});

/** What the array's own operations read and write (setup, removal state, migration flag). */
export const arrayPorts = (ctx: AppContext): ArrayPorts<Actor> => ({
  ...diskJobPorts(ctx),
  records: arrayRecords(ctx),
  hold: (groups, what) => ctx.jobs.hold(groups, what),
  progress: () => ctx.events.progress(ctx.random.uuid(), 'array.create', '/mnt/user'),
});

/** Registers `disk.upgrade` and `disk.replace` (the feature's start). */
export function registerDisks(ctx: AppContext): void {
  registerDiskJobs(ctx.jobs, diskJobPorts(ctx));
}

const guards = new WeakMap<AppContext, SlotGuards>();

/**
 * Seals every slot's empty mountpoint directory (issue 32; the service start and the disks
 * watcher); returns what each holds. One memory per context; calls made while one runs share it.
 */
export function guardSlots(ctx: AppContext): Promise<Map<string, MountpointGuard>> {
  let g = guards.get(ctx);
  if (!g) {
    g = new SlotGuards(diskJobPorts(ctx));
    guards.set(ctx, g);
  }
  return g.guard();
}
