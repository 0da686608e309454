/**
 * The ports of @appliance/shares' operations, wired to the server's context: the share store over
 * drizzle, the write queue (the regeneration starts after the COMMIT), the audit log, and the
 * Samba service built from the configuration (which smbd, its sandbox layout).
 */
import {
  type SambaHost,
  type SambaServiceOptions,
  type ShareOperationPorts,
  sambaGlobalsOf,
  sambaServiceOptions,
} from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { auditLog } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { auditedTransaction } from '../ports.ts';
import { loadAccessSnapshot, shareStore } from './store.ts';

/** Share create/update/delete run one at a time: the directory work happens outside the write job. */
const SHARES_LOCK = 'shares:definitions';

/** The operations' ports for one request, audited as `actor`. */
export function sharePorts(ctx: AppContext, actor: Actor | null): ShareOperationPorts {
  return {
    paths: ctx.paths,
    now: () => ctx.clock.now().toISOString(),
    read: shareStore(ctx.db),
    write: (fn, afterCommit) => auditedTransaction(ctx, actor, shareStore)(fn, { afterCommit }),
    serialize: (fn) => ctx.locks.run(SHARES_LOCK, fn),
    dataDeleteRunning: (name) => ctx.hooks.shareDataDeleteRunning(name),
    samba: {
      regenerate: () => ctx.hooks.regenerateSamba(),
      markPartial: (auditId) =>
        ctx.writes
          .run((db) => db.update(auditLog).set({ outcome: 'partial' }).where(eq(auditLog.id, auditId)).run())
          .then(() => undefined),
      log: (message, fields) => ctx.logger.error(message, fields),
    },
  };
}

/**
 * What this server knows of its host for Samba: the root prefix and `samba.sandbox` (which smbd it
 * drives: the machine's, the sandbox's own on `samba.port`, or none), the paths of smb.conf and the
 * pooled view.
 */
export const sambaHost = (ctx: AppContext): SambaHost => ({
  root: ctx.paths.root,
  sandbox: ctx.config.samba.sandbox,
  port: ctx.config.samba.port,
  real: (logical) => ctx.paths.real(logical),
  smbConf: ctx.paths.sambaConf,
  poolDir: ctx.paths.userPool,
});

/** The `[global]` lines this server adds to smb.conf (the regenerator's and the config import's). */
export const sambaGlobals = (ctx: AppContext) => sambaGlobalsOf(sambaHost(ctx));

/** The Samba service of this server. */
export const sambaOptions = (ctx: AppContext): SambaServiceOptions =>
  sambaServiceOptions(sambaHost(ctx), {
    runner: ctx.runner,
    loadSnapshot: () => loadAccessSnapshot(ctx.db),
    log: (level, message, fields) => ctx.logger[level](message, fields),
  });
