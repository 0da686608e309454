/**
 * smb.conf regeneration as the server uses it: one coalescing regenerator per server (06 §5.3),
 * and the "after a committed change" helper that marks the change's audit row `partial` when the
 * regeneration fails (06 §5.4).
 */
import fs from 'node:fs';
import { isAppError } from '@appliance/common';
import {
  type SambaSandboxLayout,
  type SandboxSmbd,
  createSambaReloader,
  createSandboxSmbd,
  createSmbRegenerator,
  sambaSandboxGlobals,
  sambaSandboxLayout,
  type SmbRegenerator,
} from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import type { AppContext } from '../../context.ts';
import { auditLog } from '../../db/schema.ts';
import { loadAccessSnapshot } from './store.ts';

export interface SambaConfig {
  regenerator: SmbRegenerator;
  /** Asks Samba to reload (debounced); a no-op in a sandbox without its own smbd. */
  reload(): void;
  /**
   * When the file now grants access smbd has not loaded: reloads at once and waits (at most 3 s)
   * until smbd has loaded it (issue 32). Nothing to wait for without an smbd.
   */
  settle(): Promise<void>;
  /** The sandboxed smbd (`samba.sandbox`), else null. */
  smbd: SandboxSmbd | null;
  stop(): Promise<void>;
}

/**
 * Which smbd this server drives: `host` (no root prefix: the machine's smbd, reloaded), `sandbox`
 * (a root prefix with `samba.sandbox`: the service's own smbd on a loopback port, issue 24), or
 * `none` (a sandbox without Samba: smb.conf is written and validated, nothing reads it).
 */
export function sambaMode(ctx: AppContext): 'host' | 'sandbox' | 'none' {
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

/**
 * The `[global]` lines this server adds to smb.conf: the sandboxed smbd's port and directories, or
 * none. Every renderer of the file (the regenerator, the config import) uses them.
 */
export function sambaGlobals(ctx: AppContext): Array<readonly [string, string]> | undefined {
  return sambaMode(ctx) === 'sandbox' ? sambaSandboxGlobals(sandboxLayout(ctx)) : undefined;
}

/**
 * Builds the regenerator of this server and, with `samba.sandbox`, its own smbd. Samba is asked to
 * reload on a real host and in that mode; a sandbox without it never signals the machine's smbd.
 */
export function createSambaConfig(ctx: AppContext): SambaConfig {
  const log = (message: string, cause?: unknown) =>
    ctx.logger.error(message, cause === undefined ? undefined : { error: String(cause) });
  const mode = sambaMode(ctx);
  const layout = mode === 'sandbox' ? sandboxLayout(ctx) : null;
  const reloader =
    mode === 'none'
      ? null
      : createSambaReloader({
          runner: ctx.runner,
          log,
          file: ctx.paths.sambaConf,
          ...(layout ? { smbConf: layout.smbConf, pidFile: layout.pidFile } : {}),
        });
  const globals = sambaGlobals(ctx);
  const regenerator = createSmbRegenerator({
    loadSnapshot: () => loadAccessSnapshot(ctx.db),
    file: ctx.paths.sambaConf,
    poolDir: ctx.paths.userPool,
    runner: ctx.runner,
    log,
    ...(globals ? { globals } : {}),
    ...(reloader ? { onWritten: () => reloader.request() } : {}),
  });
  const smbd = layout
    ? createSandboxSmbd({
        runner: ctx.runner,
        layout,
        root: ctx.paths.root,
        // smbd (re)started with the file as it is now: the baseline of the next reload's revocations.
        onStarted: () => reloader?.loaded(readOrNull(layout.smbConf)),
        log: (level, message, fields) => ctx.logger[level](message, fields),
      })
    : null;
  return {
    regenerator,
    reload: () => reloader?.request(),
    async settle() {
      await reloader?.settle();
    },
    smbd,
    async stop() {
      await regenerator.idle();
      reloader?.stop();
      await reloader?.idle();
      await smbd?.stop();
    },
  };
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
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
