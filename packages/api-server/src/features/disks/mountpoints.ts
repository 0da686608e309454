/**
 * The slots' mountpoint directories refuse writes while their disks are not mounted there (issue
 * 32, docs/decisions/disks.md "Offline disks"): every slot's directory is sealed (`chattr +i`, see
 * `guardMountpoint`) at every service start and again whenever a different mount (or none) is found
 * at it; what a directory holds under a mounted disk is remembered for the disks watcher, which
 * reports it (files hidden under the mount).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { guardMountpoint, logGuard, type MountpointGuard } from '@appliance/array-planner';
import type { AppContext } from '../../context.ts';
import { listSlots } from './store.ts';

interface Seen {
  /** The mount at the mountpoint when it was looked at (mountinfo id, or `none`). */
  mount: string;
  guard: MountpointGuard;
}

const seen = new WeakMap<AppContext, Map<string, Seen>>();
const running = new WeakMap<AppContext, Promise<Map<string, MountpointGuard>>>();

/** The id of the top mount at a real path in the mount table (changes with every mount), or `none`. */
async function mountIdAt(ctx: AppContext, real: string): Promise<string> {
  const info = await fs.readFile(path.join(ctx.paths.procDir, 'self', 'mountinfo'), 'utf8').catch(() => '');
  let id = 'none';
  for (const line of info.split('\n')) {
    const f = line.split(' ');
    if (f[4] !== undefined && f[4].replace(/\\040/g, ' ') === real) id = f[0] ?? id;
  }
  return id;
}

/**
 * Looks at every slot's mountpoint directory and seals it when empty; returns what each holds.
 * A directory is looked at again only when the mount on it changed since (or it was not sealed).
 * Calls made while one runs share it.
 */
export function guardSlots(ctx: AppContext): Promise<Map<string, MountpointGuard>> {
  const current = running.get(ctx);
  if (current) return current;
  const p = guardAll(ctx).finally(() => running.delete(ctx));
  running.set(ctx, p);
  return p;
}

async function guardAll(ctx: AppContext): Promise<Map<string, MountpointGuard>> {
  const memory = seen.get(ctx) ?? new Map<string, Seen>();
  seen.set(ctx, memory);
  const out = new Map<string, MountpointGuard>();
  const slots = listSlots(ctx.db);
  for (const slot of slots) {
    const mount = await mountIdAt(ctx, ctx.paths.real(slot.mountpoint));
    const before = memory.get(slot.mountpoint);
    if (before && before.mount === mount && before.guard.seal === 'sealed') {
      out.set(slot.mountpoint, before.guard);
      continue;
    }
    try {
      const guard = await guardMountpoint(ctx.runner, ctx.paths, slot.mountpoint, {
        scratch: path.join(ctx.paths.stateDir, 'mountpoint-guard'),
      });
      // said once per mount (and again when it changes), not at every watcher cycle
      if (!before || before.mount !== mount || before.guard.seal !== guard.seal)
        logGuard((m, f) => ctx.logger.warn(m, f), guard);
      memory.set(slot.mountpoint, { mount, guard });
      out.set(slot.mountpoint, guard);
    } catch (err) {
      ctx.logger.warn(`could not look at the mountpoint ${slot.mountpoint}`, {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  for (const key of [...memory.keys()]) if (!slots.some((s) => s.mountpoint === key)) memory.delete(key);
  await fs.rmdir(path.join(ctx.paths.stateDir, 'mountpoint-guard')).catch(() => undefined);
  return out;
}
