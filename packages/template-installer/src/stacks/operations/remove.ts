/**
 * DELETE /stacks/:name: `down` (containers and networks; named volumes are kept), then the stack's
 * folder and row; with `removeData` also its data folders, and only those strictly below the
 * app-data root, none reached through a symbolic link. A failed `down` removes nothing (a rerun
 * completes); the row goes last, so a crash leaves a stack a rerun removes.
 */
import fs from 'node:fs/promises';
import { stackLockKey } from '../../node/stack-store.ts';
import { dataFolders } from '../core/app-data.ts';
import { checkRemoveConfirmation } from '../core/confirm.ts';
import { composeServices } from '../core/services.ts';
import { removeFolderUnder, type RemoveOutcome } from '../node/remove-folder.ts';
import type { StacksDeps } from '../ports.ts';
import { composeWithProgress, type OperationHooks } from './lifecycle.ts';
import { requireStack } from './state.ts';

export interface RemoveResult {
  stack: string;
  /** Each data folder (real path) and what happened to it. */
  data: { folder: string; outcome: RemoveOutcome | 'kept' }[];
}

export async function removeStack(
  deps: StacksDeps,
  name: string,
  request: { confirm: string; removeData?: boolean },
  hooks: OperationHooks = {},
): Promise<RemoveResult> {
  const removeData = request.removeData === true;
  checkRemoveConfirmation(name, request.confirm, removeData);
  return deps.locks.run(stackLockKey(name), async () => {
    const row = await requireStack(deps, name);
    const folders = dataFolders(await deps.bindSources(name).catch(() => []), deps.appDataRoot);
    await composeWithProgress(deps, name, composeServices(row.compose), ['down'], 'remove', hooks);
    const data: RemoveResult['data'] = [];
    for (const folder of folders) {
      if (!removeData) {
        data.push({ folder, outcome: 'kept' });
        continue;
      }
      const outcome = await removeFolderUnder(deps.appDataRoot, folder);
      hooks.onOutput?.(`data folder ${folder}: ${outcome}`);
      data.push({ folder, outcome });
    }
    await fs.rm(deps.stackDir(name), { recursive: true, force: true });
    await deps.stacks.remove(name);
    return { stack: name, data };
  });
}
