/**
 * The ports of @appliance/shares' share data delete, wired to the server's context: the database
 * reads, the per-server busy guard (behind `ctx.hooks.shareDataDeleteRunning`, which a definition
 * delete consults), the array-job hold, progress events and the audit row.
 */
import { createShareDeleteGuard, type DataDeletePorts, type ShareDeleteGuard } from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { loadArray, loadShare } from './store.ts';

const guards = new WeakMap<AppContext, ShareDeleteGuard>();

/** This server's "is a delete running for share X" (05 §4 step 12). */
export function deleteGuard(ctx: AppContext): ShareDeleteGuard {
  let guard = guards.get(ctx);
  if (!guard) {
    guard = createShareDeleteGuard(ctx.locks);
    guards.set(ctx, guard);
  }
  return guard;
}

export function dataDeletePorts(ctx: AppContext, actor: Actor | null): DataDeletePorts {
  return {
    paths: ctx.paths,
    runner: ctx.runner,
    plainDirectories: ctx.paths.root !== '' && !ctx.config.lab.enabled,
    loadShare: (n) => loadShare(ctx.db, n),
    loadArray: () => loadArray(ctx.db),
    guard: deleteGuard(ctx),
    // deletes share the hold: deletes of different shares run at once, and a second delete of the
    // same share reaches step 12 (share_busy)
    holdArray: (name) =>
      ctx.jobs.hold(['array'], { type: 'share_data.delete', target: name, mode: 'shared' }),
    progress: (name) => ctx.events.progress(ctx.random.uuid(), 'share_data.delete', name),
    audit: (entry) => ctx.writes.run((db) => ctx.audit.record(db, actor, entry)).then(() => undefined),
  };
}
