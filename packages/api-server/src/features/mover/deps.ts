/**
 * The mover job's ports (`@appliance/shares`' `MoverJobDeps`, `MoverScheduleDeps`) wired to the
 * server: the cache and data disks (real paths, in the array's order; data disks with a removal
 * state neither take files nor are checked), whether each is mounted, the cache-then-move shares
 * and their create policies, minfreespace, the journal directory, /proc, the command runner, the
 * notification path, the settings (./store.ts) and the job runner.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { isMountedAt, minFreeSpaceMiB } from '@appliance/array-planner';
import { type MoverJobDeps, type MoverScheduleDeps, moverNoCache } from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import { listSlots, readSettings as readArraySettings } from '../disks/store.ts';
import { readSettings } from '../settings/index.ts';
import { listShares } from '../shares/store.ts';
import { readMoverSettings } from './store.ts';

const MiB = 1024 * 1024;

/** The journal of the batch being moved (system disk, survives a restart). */
export const journalDir = (ctx: AppContext): string => path.join(ctx.paths.stateDir, 'mover');

export const moverShares = (ctx: AppContext) =>
  listShares(ctx.db)
    .filter((s) => s.cacheMode === 'cache-then-move')
    .map((s) => ({ name: s.name, createPolicy: s.createPolicy }));

export const hasCache = (ctx: AppContext): boolean => listSlots(ctx.db).some((s) => s.role === 'cache');

export function requireCache(ctx: AppContext): void {
  if (!hasCache(ctx)) throw moverNoCache();
}

export function moverJobDeps(ctx: AppContext): MoverJobDeps {
  const disk = (mountpoint: string) => ({ mountpoint, path: ctx.paths.real(mountpoint) });
  return {
    disks: () => {
      const slots = listSlots(ctx.db);
      const cache = slots.find((s) => s.role === 'cache');
      if (!cache) return null;
      const data = slots
        .filter((s) => s.role === 'data' && s.removalState === null)
        .sort((a, b) => a.roleIndex - b.roleIndex);
      return { cache: disk(cache.mountpoint), data: data.map((d) => disk(d.mountpoint)) };
    },
    // mounted; on a sandbox outside lab mode the disks are plain directories, which count when they exist
    present: (d) =>
      ctx.paths.root !== '' && !ctx.config.lab.enabled
        ? fs.stat(d.path).then(
            (st) => st.isDirectory(),
            () => false,
          )
        : isMountedAt(ctx.paths, d.mountpoint),
    shares: () => moverShares(ctx),
    minFreeBytes: () =>
      minFreeSpaceMiB(
        listSlots(ctx.db).map((s) => ({ role: s.role, entry: { sizeBytes: s.sizeBytes ?? 0 } })),
      ) * MiB,
    journalDir: () => journalDir(ctx),
    procDir: ctx.paths.procDir,
    runner: ctx.runner,
    tuning: () => ({
      ...(ctx.hooks.moverBeforeBatch ? { beforeBatch: ctx.hooks.moverBeforeBatch } : {}),
      ...(ctx.hooks.moverBatch ? { batch: ctx.hooks.moverBatch } : {}),
    }),
    raise: async (event) => {
      await ctx.hooks.raise?.(event);
    },
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
    timeZone: () => readSettings(ctx.db).timezone,
    jobs: ctx.jobs,
  };
}
