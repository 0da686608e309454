/**
 * The backups package's adapters wired to the server: restic on a plan's repository (the password
 * unsealed for the life of a job, into a 0600 file of the job's private temp folder), the stacks'
 * compose tool, and the configuration archive written to a file by the config export's own code.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startExport } from '@appliance/archive-preview';
import { createStackControl, openRestic, type Restic, type StackControl } from '@appliance/backups';
import { AppError } from '@appliance/common';
import { createComposeTool, toolEnvironment } from '@appliance/template-installer';
import type { AppContext } from '../../context.ts';
import { exportDeps } from '../config-archive/deps.ts';
import { readSettings } from '../settings/index.ts';
import type { StoredPlan } from './store.ts';

let appVersion = '0.0.0';
export const setAppVersion = (v: string) => {
  appVersion = v;
};

/** A private (0700) temp folder under the state directory for one job; removed by `done`. */
export async function jobTempDir(
  ctx: AppContext,
  id: string,
): Promise<{ dir: string; done(): Promise<void> }> {
  const root = path.join(ctx.paths.stateDir, 'tmp');
  await fsp.mkdir(root, { recursive: true, mode: 0o700 });
  const dir = path.join(root, `backup-${id}`);
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { mode: 0o700 });
  return { dir, done: () => fsp.rm(dir, { recursive: true, force: true }) };
}

export const passwordMissing = (plan: string) =>
  new AppError(
    409,
    'repository_password_missing',
    `The repository password of plan ${plan} is not known on this box (the configuration import did not open secrets.age): import the archive again with its backup passphrase.`,
    { plan },
  );

/** restic on the plan's repository at `repository` (real path). */
export async function openPlanRestic(
  ctx: AppContext,
  plan: StoredPlan,
  repository: string,
  tmpDir: string,
): Promise<Restic> {
  if (plan.sealedPassword === null) throw passwordMissing(plan.name);
  return openRestic({
    runner: ctx.runner,
    repository,
    password: ctx.sealer.unsealText(plan.sealedPassword),
    tmpDir,
    cacheDir: path.join(ctx.paths.stateDir, 'cache', 'restic'),
    timeZone: readSettings(ctx.db).timezone,
  });
}

/** The stacks' compose tool and `docker`, with the daemon's DOCKER_HOST (read at each call). */
export function stackControl(ctx: AppContext): StackControl {
  return createStackControl({
    runner: ctx.runner,
    stacksDir: ctx.paths.stacksDir,
    compose: async () => {
      const tool = await createComposeTool(ctx.runner, process.env).detect();
      return { command: tool.command, prefix: tool.prefix };
    },
    get env() {
      return toolEnvironment(process.env);
    },
  });
}

/** Writes the configuration archive (01 §1, the export's own code) to `file`, mode 0600. */
export async function writeConfigArchive(ctx: AppContext, file: string): Promise<{ bytes: number }> {
  const result = await startExport(exportDeps(ctx, appVersion));
  await pipeline(result.stream, fs.createWriteStream(file, { mode: 0o600, flags: 'wx' }));
  await result.done;
  return { bytes: (await fsp.stat(file)).size };
}
