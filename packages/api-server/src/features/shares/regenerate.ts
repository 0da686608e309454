/**
 * smb.conf regeneration as the server uses it: one coalescing regenerator per server (06 §5.3),
 * and the "after a committed change" helper that marks the change's audit row `partial` when the
 * regeneration fails (06 §5.4).
 */
import { isAppError } from '@appliance/common';
import { createSambaReloader, createSmbRegenerator, type SmbRegenerator } from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import type { AppContext } from '../../context.ts';
import { auditLog } from '../../db/schema.ts';
import { loadAccessSnapshot } from './store.ts';

export interface SambaConfig {
  regenerator: SmbRegenerator;
  /** Asks Samba to reload (debounced); a no-op in a sandbox. */
  reload(): void;
  stop(): Promise<void>;
}

/**
 * Builds the regenerator of this server. Samba is asked to reload only on a real host (no root
 * prefix): a sandboxed server must not touch the machine's smbd.
 */
export function createSambaConfig(ctx: AppContext): SambaConfig {
  const log = (message: string, cause?: unknown) =>
    ctx.logger.error(message, cause === undefined ? undefined : { error: String(cause) });
  const reloader = ctx.paths.root === '' ? createSambaReloader({ runner: ctx.runner, log }) : null;
  const regenerator = createSmbRegenerator({
    loadSnapshot: () => loadAccessSnapshot(ctx.db),
    file: ctx.paths.sambaConf,
    poolDir: ctx.paths.userPool,
    runner: ctx.runner,
    log,
    ...(reloader ? { onWritten: () => reloader.request() } : {}),
  });
  return {
    regenerator,
    reload: () => reloader?.request(),
    async stop() {
      await regenerator.idle();
      reloader?.stop();
    },
  };
}

/**
 * Regenerates smb.conf after a committed change. On `smb_regeneration_failed` the change stays
 * saved, its audit row becomes `partial`, and the error goes to the client.
 */
export async function regenerateAfter(ctx: AppContext, auditId: number): Promise<void> {
  try {
    await ctx.hooks.regenerateSamba();
  } catch (err) {
    if (isAppError(err) && err.code === 'smb_regeneration_failed') {
      await ctx.writes
        .run((db) => db.update(auditLog).set({ outcome: 'partial' }).where(eq(auditLog.id, auditId)).run())
        .catch((e: unknown) =>
          ctx.logger.error('marking the audit row partial failed', { error: String(e) }),
        );
    }
    throw err;
  }
}

/**
 * A write job whose change affects smb.conf (06 §5.3). `fn` records its audit row (its id is then
 * `ctx.audit.lastId`); the regeneration starts right after the batch's COMMIT, while the WAL flush
 * runs, and the job settles once both are done (a failed regeneration marks the audit row
 * `partial` and rejects).
 */
export async function writeThenRegenerate<T>(ctx: AppContext, fn: (db: Db) => T): Promise<T> {
  const { value } = await ctx.writes.run((db) => ({ value: fn(db), auditId: ctx.audit.lastId }), {
    afterCommit: ({ auditId }) => regenerateAfter(ctx, auditId),
  });
  return value;
}
