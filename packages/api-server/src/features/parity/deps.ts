/**
 * The ports of `@appliance/parity`'s jobs, status and schedules, wired to the server's context:
 * the array's slots and settings from SQLite, the parity rows (./store.ts), the disks' metadata
 * saver, the notification path and conditions for events.
 */
import { saveArrayMetadata } from '@appliance/array-planner';
import {
  hostSlots,
  type ParityJobDeps,
  type ParityRequestPorts,
  type ParityScheduleDeps,
  type ParitySettingsPorts,
  type ParityStatusDeps,
  paritySince,
  type SlotsReader,
} from '@appliance/parity';
import type { AppContext } from '../../context.ts';
import { listSlots, readSettings as readArraySettings, slotStore } from '../disks/store.ts';
import { eventPorts, hostTools, plainDirectories, settingsTimeZone } from '../ports.ts';
import type { Actor } from '../../services/audit.ts';
import { createParityStore, paritySettingsTransaction } from './store.ts';

/** The array's slots (on a sandbox outside lab mode the slots are plain directories, present when they exist). */
const slotsReader = (ctx: AppContext): SlotsReader =>
  hostSlots(() => listSlots(ctx.db), {
    paths: ctx.paths,
    plainDirectories: plainDirectories(ctx),
  });

/** What the sync and scrub jobs (and a disk job's sync) run on. */
export function parityJobDeps(ctx: AppContext): ParityJobDeps {
  return {
    ...hostTools(ctx),
    configFile: ctx.paths.snapraidConf,
    slots: slotsReader(ctx),
    store: createParityStore(ctx),
    metadata: {
      // the disks' store alone: the disk jobs' ports (disks/deps.ts) use this sync
      save: (job) =>
        saveArrayMetadata(
          { slots: slotStore(ctx), runner: ctx.runner, paths: ctx.paths, log: ctx.logger },
          job,
        ),
    },
    events: eventPorts(ctx, 'parity'),
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
    arraySince: () => paritySince(slotsReader(ctx), readArraySettings(ctx.db)?.createdAt ?? null),
    timeZone: settingsTimeZone(ctx),
    jobs: ctx.jobs,
  };
}

/** What a sync or scrub request reads and starts. */
export const parityRequestPorts = (ctx: AppContext): ParityRequestPorts<Actor> => ({
  slots: slotsReader(ctx),
  runner: ctx.runner,
  store: createParityStore(ctx),
  jobs: ctx.jobs,
});

/** Where `PUT /settings/parity` saves. */
export const paritySettingsPorts = (ctx: AppContext): ParitySettingsPorts<Actor> => ({
  store: createParityStore(ctx),
  transaction: paritySettingsTransaction(ctx),
  clock: ctx.clock,
});
