/**
 * The mover's ports wired to the server: the cache-then-move shares and their create policies, the
 * data disks (real paths, in the array's order), minfreespace, the journal directory, /proc and the
 * command runner. Refuses a run on an array with a data disk or the cache missing: a file could
 * exist on the missing disk, and the mover must never put a second copy beside it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type ArraySlot, isMountedAt, minFreeSpaceMiB } from '@appliance/array-planner';
import { conflict } from '@appliance/common';
import type { MoverOptions } from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import { listSlots } from '../disks/store.ts';
import { listShares } from '../shares/store.ts';

const MiB = 1024 * 1024;

/** The journal of the batch being moved (system disk, survives a restart). */
export const journalDir = (ctx: AppContext): string => path.join(ctx.paths.stateDir, 'mover');

export const moverShares = (ctx: AppContext) =>
  listShares(ctx.db)
    .filter((s) => s.cacheMode === 'cache-then-move')
    .map((s) => ({ name: s.name, createPolicy: s.createPolicy }));

export const hasCache = (ctx: AppContext): boolean => listSlots(ctx.db).some((s) => s.role === 'cache');

export function requireCache(ctx: AppContext): void {
  if (!hasCache(ctx))
    throw conflict(
      'no_cache',
      'The array has no cache disk, so there is nothing to move: the mover moves the files of cache-then-move shares from the cache to the data disks.',
    );
}

/** Whether a slot's disk is there (mounted; a plain directory on a sandbox outside lab mode). */
async function present(ctx: AppContext, slot: ArraySlot): Promise<boolean> {
  if (ctx.paths.root !== '' && !ctx.config.lab.enabled)
    return fs.stat(ctx.paths.real(slot.mountpoint)).then(
      (st) => st.isDirectory(),
      () => false,
    );
  return isMountedAt(ctx.paths, slot.mountpoint);
}

export async function moverOptions(
  ctx: AppContext,
): Promise<Omit<MoverOptions, 'verify' | 'signal' | 'onSpawn' | 'onOutput' | 'onProgress'>> {
  requireCache(ctx);
  const slots = listSlots(ctx.db);
  const cache = slots.find((s) => s.role === 'cache')!;
  const data = slots
    .filter((s) => s.role === 'data' && s.removalState === null)
    .sort((a, b) => a.roleIndex - b.roleIndex);
  const there = await Promise.all([cache, ...data].map((s) => present(ctx, s)));
  const missing = [cache, ...data].filter((_, i) => !there[i]).map((s) => s.mountpoint);
  if (missing.length > 0)
    throw conflict(
      'array_degraded',
      `The mover moves nothing while ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not mounted (a file could be on a missing disk); mount the disks again, then run the mover.`,
      { missing },
    );
  return {
    shares: moverShares(ctx),
    cacheRoot: ctx.paths.real(cache.mountpoint),
    dataDisks: data.map((d) => ctx.paths.real(d.mountpoint)),
    minFreeBytes:
      minFreeSpaceMiB(slots.map((s) => ({ role: s.role, entry: { sizeBytes: s.sizeBytes ?? 0 } }))) * MiB,
    journalDir: journalDir(ctx),
    procDir: ctx.paths.procDir,
    runner: ctx.runner,
  };
}
