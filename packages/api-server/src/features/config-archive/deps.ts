/** Builds the archive-preview package's ports from the server context. */
import fs from 'node:fs';
import {
  type ExportDeps,
  loadMigrations,
  type Migrations,
  type PreviewDeps,
} from '@appliance/archive-preview';
import type { AppContext } from '../../context.ts';
import { machineKeyCheck } from '../../db/machine-key.ts';
import { MIGRATIONS_DIR } from '../../db/open.ts';

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
