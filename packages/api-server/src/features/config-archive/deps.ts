/** Builds the archive-preview package's ports from the server context. */
import fs from 'node:fs';
import {
  type ExportDeps,
  type ImportDeps,
  loadMigrations,
  type Migrations,
  type PreviewDeps,
} from '@appliance/archive-preview';
import { customConfPath, renderSmbConf, validateSmbConf } from '@appliance/shares';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { AppContext } from '../../context.ts';
import { jobRunning } from '@appliance/jobs';
import { createSealer, machineKeyCheck } from '../../db/machine-key.ts';
import { type Db, MIGRATIONS_DIR } from '../../db/open.ts';
import * as schema from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { loadAccessSnapshot } from '../shares/store.ts';
import { sambaGlobals } from '../shares/deps.ts';

let migrations: Migrations | null = null;
const shippedMigrations = (): Migrations => {
  migrations ??= loadMigrations(MIGRATIONS_DIR);
  return migrations;
};

export function previewDeps(ctx: AppContext): PreviewDeps {
  return {
    paths: ctx.paths,
    db: ctx.sqlite,
    migrations: shippedMigrations(),
    sealer: ctx.sealer,
    keyCheck: machineKeyCheck,
    inventory: ctx.inventory,
  };
}

export function exportDeps(ctx: AppContext, appVersion: string): ExportDeps {
  return {
    paths: ctx.paths,
    db: ctx.sqlite,
    sealer: ctx.sealer,
    machineKey: () => fs.readFileSync(ctx.paths.machineKey),
    appVersion,
    clock: ctx.clock,
    log: (message) => ctx.logger.info(message),
  };
}

/**
 * The import's adapters (08 §14): the preview's ports plus the lock, the pre-import export, smb.conf
 * rendered from the prepared database exactly as the shares feature renders it and validated by
 * testparm, mounting by device, the audit row, progress events, and what changes in the running
 * server after the commit (an adopted machine key, the accounts).
 */
export function importDeps(
  ctx: AppContext,
  options: {
    actor: Actor | null;
    appVersion: string;
    onStep: ImportDeps['onStep'];
    onAccountsReplaced: () => void;
  },
): ImportDeps {
  return {
    ...previewDeps(ctx),
    sealer: ctx.sealer,
    exportDeps: exportDeps(ctx, options.appVersion),
    tryLock: () => ctx.gate.tryImport(),
    whyBusy: () => {
      const job = ctx.jobs.running()[0];
      return job
        ? jobRunning({
            type: job.type,
            title: `the ${job.type} job`,
            target: job.target,
            jobId: job.id,
            cancellable: job.cancellable,
          })
        : null;
    },
    async renderSmbConf(prepared) {
      const conn = new Database(prepared, { readonly: true, fileMustExist: true });
      try {
        const snapshot = loadAccessSnapshot(drizzle(conn, { schema }) as unknown as Db);
        const include = customConfPath(ctx.paths.sambaConf);
        const includeFile = fs.statSync(include, { throwIfNoEntry: false })?.isFile() ? include : null;
        const globals = sambaGlobals(ctx);
        return renderSmbConf(snapshot, {
          poolDir: ctx.paths.userPool,
          includeFile,
          ...(globals ? { globals } : {}),
        });
      } finally {
        conn.close();
      }
    },
    validateSmbConf: (candidate) =>
      validateSmbConf(ctx.runner, candidate, {
        log: (message) => ctx.logger.error(message),
      }),
    mounter: {
      async mount(op, real) {
        const r = await ctx.runner.run('mount', [op.device, real], { timeoutMs: 60_000 });
        if (r.exitCode !== 0) throw new Error(`mount ${op.device} ${real}: ${r.stderr.trim()}`);
        const uuid = await ctx.runner.run('findmnt', ['-n', '-r', '-o', 'UUID', '--mountpoint', real], {
          timeoutMs: 10_000,
        });
        const found = uuid.stdout.trim().split('\n').at(-1) ?? '';
        if (op.fsUuid !== '' && found !== op.fsUuid)
          throw new Error(`${real} holds filesystem ${found || 'none'}, not ${op.fsUuid}`);
      },
      async unmount(real) {
        await ctx.runner.run('umount', [real], { timeoutMs: 60_000 });
      },
    },
    auditRow(_db, details) {
      const archive = details['archive'] as { hostname?: string } | undefined;
      ctx.audit.record(ctx.db, options.actor, {
        operation: 'config.import',
        target: archive?.hostname ?? 'configuration',
        details,
      });
    },
    ...(options.onStep ? { onStep: options.onStep } : {}),
    ...(ctx.hooks.importFault ? { beforeStep: (step) => ctx.hooks.importFault?.(step) } : {}),
    async onCommitted({ adoptedKey }) {
      if (adoptedKey) {
        ctx.sealer = createSealer(adoptedKey);
        ctx.machineKeyCheck = machineKeyCheck(adoptedKey);
      }
      options.onAccountsReplaced();
      // smb.conf was swapped in by the import: Samba reloads it (real host, or samba.sandbox).
      ctx.hooks.reloadSamba?.();
      // The files the import wrote are what the service wrote (drift watcher), and the watchers'
      // settings may have changed (issue 22).
      ctx.generated.recordAfterImport();
      ctx.watchers.reschedule();
    },
    log: (message, fields) => ctx.logger.error(message, fields),
  };
}
