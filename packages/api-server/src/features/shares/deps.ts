/**
 * The ports of @appliance/shares' operations, wired to the server's context: the share store over
 * drizzle, the write queue (the regeneration starts after the COMMIT), the audit log, and the
 * Samba service built from the configuration (which smbd, its sandbox layout).
 */
import {
  type SambaMode,
  type SambaSandboxLayout,
  type SambaServiceOptions,
  type ShareOperationPorts,
  sambaSandboxLayout,
  sambaServiceGlobals,
} from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { auditLog } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { loadAccessSnapshot, shareStore } from './store.ts';

/** Share create/update/delete run one at a time: the directory work happens outside the write job. */
const SHARES_LOCK = 'shares:definitions';

/** The operations' ports for one request, audited as `actor`. */
export function sharePorts(ctx: AppContext, actor: Actor | null): ShareOperationPorts {
  return {
    paths: ctx.paths,
    now: () => ctx.clock.now().toISOString(),
    read: shareStore(ctx.db),
    write: (fn, afterCommit) =>
      ctx.writes.run(
        (db) => {
          const store = shareStore(db);
          return fn({
            ...store,
            permissions: store.permissions,
            audit: (e) => ctx.audit.record(db, actor, e),
          });
        },
        { afterCommit },
      ),
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
 * Which smbd this server drives: `host` (no root prefix: the machine's smbd, reloaded), `sandbox`
 * (a root prefix with `samba.sandbox`: the service's own smbd on a loopback port, issue 24), or
 * `none` (a sandbox without Samba: smb.conf is written and validated, nothing reads it).
 */
export function sambaMode(ctx: AppContext): SambaMode {
  if (ctx.paths.root === '') return 'host';
  return ctx.config.samba.sandbox ? 'sandbox' : 'none';
}

/** The sandboxed smbd's layout under the root prefix. */
export function sandboxLayout(ctx: AppContext): SambaSandboxLayout {
  return sambaSandboxLayout({
    real: (logical) => ctx.paths.real(logical),
    smbConf: ctx.paths.sambaConf,
    poolDir: ctx.paths.userPool,
    port: ctx.config.samba.port,
  });
}

/** The `[global]` lines this server adds to smb.conf (the regenerator's and the config import's). */
export function sambaGlobals(ctx: AppContext): Array<readonly [string, string]> | undefined {
  const mode = sambaMode(ctx);
  return sambaServiceGlobals(mode, mode === 'sandbox' ? sandboxLayout(ctx) : null);
}

/** The Samba service of this server. */
export function sambaOptions(ctx: AppContext): SambaServiceOptions {
  const mode = sambaMode(ctx);
  return {
    mode,
    layout: mode === 'sandbox' ? sandboxLayout(ctx) : null,
    runner: ctx.runner,
    file: ctx.paths.sambaConf,
    poolDir: ctx.paths.userPool,
    root: ctx.paths.root,
    loadSnapshot: () => loadAccessSnapshot(ctx.db),
    log: (level, message, fields) => ctx.logger[level](message, fields),
  };
}
