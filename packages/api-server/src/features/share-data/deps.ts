/**
 * The ports of @appliance/shares' share data delete, wired to the server's context: the database
 * reads, the busy guard of this server's locks (behind `ctx.hooks.shareDataDeleteRunning`, which a
 * definition delete consults), the array-job hold, progress events and the audit row.
 */
import { type DataDeletePorts, ShareDeleteGuard } from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { auditRecorder, plainDirectories } from '../ports.ts';
import { loadArray, loadShare } from './store.ts';

export function dataDeletePorts(ctx: AppContext, actor: Actor | null): DataDeletePorts {
  return {
    paths: ctx.paths,
    runner: ctx.runner,
    plainDirectories: plainDirectories(ctx),
    loadShare: (n) => loadShare(ctx.db, n),
    loadArray: () => loadArray(ctx.db),
    guard: ShareDeleteGuard.of(ctx.locks),
    // deletes share the hold: deletes of different shares run at once, and a second delete of the
    // same share reaches step 12 (share_busy)
    holdArray: (name) =>
      ctx.jobs.hold(['array'], { type: 'share_data.delete', target: name, mode: 'shared' }),
    progress: (name) => ctx.events.progress(ctx.random.uuid(), 'share_data.delete', name),
    audit: auditRecorder(ctx, actor),
  };
}
