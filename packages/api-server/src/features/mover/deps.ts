/**
 * The mover's ports (`@appliance/shares`' `MoverJobDeps`, `MoverScheduleDeps`,
 * `MoverServicePorts`) wired to the server: the array's slots and the share rows (the package picks
 * the disks and shares), whether each disk is mounted, minfreespace, the journal directory, /proc,
 * the command runner, the notification path, the settings (./store.ts) and the job runner.
 */
import path from 'node:path';
import { isMountedAt, minFreeSpaceBytes } from '@appliance/array-planner';
import {
  diskPresence,
  hasCacheDisk,
  type MoverJobDeps,
  type MoverScheduleDeps,
  type MoverServicePorts,
  moverDisks,
  moverShares,
} from '@appliance/shares';
import { isoMillis } from '@appliance/common';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { listSlots, readSettings as readArraySettings } from '../disks/store.ts';
import { auditedTransaction, plainDirectories, raiseEvent, settingsTimeZone } from '../ports.ts';
import { listShares } from '../shares/store.ts';
import { readMoverSettings, writeMoverSettings } from './store.ts';

export const hasCache = (ctx: AppContext): boolean => hasCacheDisk(listSlots(ctx.db));

export function moverJobDeps(ctx: AppContext): MoverJobDeps {
  return {
    disks: () => moverDisks(listSlots(ctx.db), (m) => ctx.paths.real(m)),
    // on a sandbox outside lab mode the disks are plain directories
    present: diskPresence({
      plainDirectories: plainDirectories(ctx),
      isMounted: (mountpoint) => isMountedAt(ctx.paths, mountpoint),
    }),
    shares: () => moverShares(listShares(ctx.db)),
    minFreeBytes: () => minFreeSpaceBytes(listSlots(ctx.db)),
    // the journal of the batch being moved (system disk, survives a restart)
    journalDir: () => path.join(ctx.paths.stateDir, 'mover'),
    procDir: ctx.paths.procDir,
    runner: ctx.runner,
    tuning: () => ({
      ...(ctx.hooks.moverBeforeBatch ? { beforeBatch: ctx.hooks.moverBeforeBatch } : {}),
      ...(ctx.hooks.moverBatch ? { batch: ctx.hooks.moverBatch } : {}),
    }),
    raise: raiseEvent(ctx),
    log: ctx.logger,
  };
}

export function moverScheduleDeps(ctx: AppContext): MoverScheduleDeps {
  return {
    settings: () => readMoverSettings(ctx.db),
    arraySince: () => {
      const array = readArraySettings(ctx.db);
      return array ? new Date(array.createdAt) : null;
    },
    hasCache: () => hasCache(ctx),
    timeZone: settingsTimeZone(ctx),
    jobs: ctx.jobs,
  };
}

/** The ports of the mover's API operations, for one request audited as `actor`. */
export function moverPorts(ctx: AppContext, actor: Actor | null): MoverServicePorts<Actor | null> {
  return {
    slots: () => listSlots(ctx.db),
    shares: () => listShares(ctx.db),
    settings: () => readMoverSettings(ctx.db),
    writeSettings: auditedTransaction(ctx, actor, (db) => ({
      read: () => readMoverSettings(db),
      write: (s) => writeMoverSettings(db, s, isoMillis(ctx.clock.now())),
    })),
    jobs: ctx.jobs,
    actor,
    nextRun: () => ctx.scheduler.view('mover')?.nextDueAt ?? null,
  };
}
