/**
 * The ports of `@appliance/parity`'s jobs, status and schedules, wired to the server's context:
 * the array's slots and settings from SQLite, the parity rows (./store.ts), the disks' metadata
 * saver, the notification path and conditions for events.
 */
import fs from 'node:fs/promises';
import { isMountedAt } from '@appliance/array-planner';
import type {
  ParityJobDeps,
  ParityScheduleDeps,
  ParitySlot,
  ParityStatusDeps,
  SlotsReader,
} from '@appliance/parity';
import type { AppContext } from '../../context.ts';
import { saveArrayMetadata } from '../disks/metadata.ts';
import { listSlots, readSettings as readArraySettings } from '../disks/store.ts';
import { readSettings } from '../settings/index.ts';
import { createParityStore } from './store.ts';

/**
 * The array's slots; a slot is present when its disk is mounted (on a sandbox outside lab mode the
 * slots are plain directories, which count when they exist).
 */
function slotsReader(ctx: AppContext): SlotsReader {
  const plain = ctx.paths.root !== '' && !ctx.config.lab.enabled;
  return {
    list: () => listSlots(ctx.db),
    present: (slot: ParitySlot) =>
      plain
        ? fs.stat(ctx.paths.real(slot.mountpoint)).then(
            (st) => st.isDirectory(),
            () => false,
          )
        : isMountedAt(ctx.paths, slot.mountpoint),
  };
}

/** What the sync and scrub jobs (and a disk job's sync) run on. */
export function parityJobDeps(ctx: AppContext): ParityJobDeps {
  return {
    runner: ctx.runner,
    configFile: ctx.paths.snapraidConf,
    clock: ctx.clock,
    log: ctx.logger,
    slots: slotsReader(ctx),
    store: createParityStore(ctx),
    metadata: { save: (job) => saveArrayMetadata(ctx, job) },
    events: {
      raise: async (event) => {
        await ctx.hooks.raise?.(event);
      },
      hold: async (key, event) => {
        await ctx.conditions.hold(key, event, 'parity');
      },
    },
  };
}

/** What `GET /disks/array/parity` reads. */
export function parityStatusDeps(ctx: AppContext): ParityStatusDeps {
  return {
    slots: slotsReader(ctx),
    store: createParityStore(ctx),
    jobs: ctx.jobs,
    schedules: ctx.scheduler,
    clock: ctx.clock,
  };
}

/** The schedules count from the array's creation, while it has a parity disk; the settings' time zone. */
export function parityScheduleDeps(ctx: AppContext): ParityScheduleDeps {
  return {
    store: createParityStore(ctx),
    arraySince: () => {
      const array = readArraySettings(ctx.db);
      return array && listSlots(ctx.db).some((s) => s.role === 'parity') ? new Date(array.createdAt) : null;
    },
    timeZone: () => readSettings(ctx.db).timezone,
    jobs: ctx.jobs,
  };
}
