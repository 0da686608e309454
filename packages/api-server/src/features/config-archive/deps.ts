/** Builds the archive-preview package's ports from the server context. */
import fs from 'node:fs';
import {
  afterImport,
  deviceMounter,
  type ExportDeps,
  type ExportGuard,
  type ImportDeps,
  loadMigrations,
  type Migrations,
  type PreviewDeps,
} from '@appliance/archive-preview';
import { renderSmbConfFor, validateSmbConf } from '@appliance/shares';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { AppContext } from '../../context.ts';
import { createSealer, machineKeyCheck } from '../../db/machine-key.ts';
import { type Db, MIGRATIONS_DIR } from '../../db/open.ts';
import * as schema from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { loadAccessSnapshot } from '../shares/store.ts';
import { sambaHost } from '../shares/deps.ts';

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
 * rendered from the prepared database (a read-only connection the package opens) exactly as this
 * host's Samba service renders it (`renderSmbConfFor`) and validated by testparm, mounting by
 * device, the audit row, progress events, and the ports of what changes in the running server
 * after the commit (the package's `afterImport`).
 */
export function importDeps(
  ctx: AppContext,
  options: {
    actor: Actor | null;
    appVersion: string;
    onStep?: ImportDeps['onStep'];
    onAccountsReplaced: () => void;
  },
): ImportDeps {
  return {
    ...previewDeps(ctx),
    sealer: ctx.sealer,
    exportDeps: exportDeps(ctx, options.appVersion),
    tryLock: () => ctx.gate.tryImport(),
    runningJob: () => ctx.jobs.running()[0] ?? null,
    renderSmbConf: (prepared) =>
      renderSmbConfFor(sambaHost(ctx), loadAccessSnapshot(drizzle(prepared, { schema }) as unknown as Db)),
    validateSmbConf: (candidate) =>
      validateSmbConf(ctx.runner, candidate, {
        log: (message) => ctx.logger.error(message),
      }),
    mounter: deviceMounter(ctx.runner),
    auditRow: (_db, details, target) =>
      ctx.audit.record(ctx.db, options.actor, { operation: 'config.import', target, details }),
    ...(options.onStep ? { onStep: options.onStep } : {}),
    ...(ctx.hooks.importFault ? { beforeStep: (step) => ctx.hooks.importFault?.(step) } : {}),
    onCommitted: (result) =>
      afterImport(
        {
          adoptMachineKey(key) {
            ctx.sealer = createSealer(key);
            ctx.machineKeyCheck = machineKeyCheck(key);
          },
          resetAccounts: options.onAccountsReplaced,
          reloadSamba: () => ctx.hooks.reloadSamba?.(),
          recordGeneratedFiles: () => ctx.generated.recordAfterImport(),
          rescheduleWatchers: () => ctx.watchers.reschedule(),
        },
        result,
      ),
    log: (message, fields) => ctx.logger.error(message, fields),
  };
}

/** The export's import lock, its audit row (only for a request with an actor) and its log. */
export function exportGuard(ctx: AppContext, actor: Actor | null): ExportGuard {
  return {
    enter: () => ctx.gate.enter(),
    async audit(target, outcome) {
      if (!actor) return;
      await ctx.writes.run((db) =>
        ctx.audit.record(db, actor, { operation: 'config.export', target, outcome }),
      );
    },
    log: (message, fields) => ctx.logger.error(message, fields),
  };
}
