/**
 * A restore on request: a share's or a stack's snapshot (or chosen paths of it) into its place,
 * after a typed confirmation (what is there is moved aside), or into a new folder. The checks come
 * in the order the API answers them; the restore itself is the job (`backupRestoreHandler`).
 */
import { refuse } from '@appliance/common';
import type { PartRef } from '../core/parts.ts';
import { checkFolderTarget, checkRestorePaths, restorePhrase } from '../core/restore.ts';
import { passwordMissing } from '../jobs/common.ts';
import { backupRestoreJob } from '../jobs/kinds.ts';
import type { PlanAdminPorts } from '../ports.ts';
import { requirePlan } from './plans.ts';

/** A restore as the API accepts it: exactly one of `share` or `stack`. */
export interface RestoreRequest {
  plan: string;
  snapshot: string;
  share?: string | undefined;
  stack?: string | undefined;
  paths: string[];
  /** Logical new folder; absent or null: into its place. */
  folder?: string | null | undefined;
  confirmation?: string | null | undefined;
}

/** The part a request names, or the refusal (`bad_request`) when it names none or both. */
export function restorePart(
  request: Pick<RestoreRequest, 'share' | 'stack'>,
): Exclude<PartRef, { kind: 'config' }> {
  if ((request.share === undefined) === (request.stack === undefined))
    throw refuse(
      'bad_request',
      'Name what the snapshot holds: exactly one of share or stack (the configuration is restored with appliance backups restore --configuration, through the config import).',
      { issues: [{ path: 'share', message: 'give exactly one of share or stack' }] },
    );
  return request.share !== undefined
    ? { kind: 'share', name: request.share }
    : { kind: 'stack', name: request.stack! };
}

/** Checks a restore request and starts its job; answers the job's view. */
export async function startRestore(
  ports: Pick<PlanAdminPorts, 'plans' | 'jobs' | 'checkDestination'>,
  request: RestoreRequest,
) {
  const part = restorePart(request);
  const checked = checkRestorePaths(request.paths);
  if ('error' in checked) throw checked.error;
  const folder = request.folder ?? null;
  if (folder !== null) {
    const bad = checkFolderTarget(folder);
    if (bad) throw bad;
  }
  const plan = requirePlan(ports.plans, request.plan);
  if (plan.sealedPassword === null) throw passwordMissing(plan.name);
  if (folder === null && request.confirmation !== restorePhrase(part))
    throw refuse(
      'confirmation_required',
      `Restoring into its place moves what is there now aside (<name>.before-restore-<time>) and puts the snapshot's files in its place. Type exactly: ${restorePhrase(part)}`,
      { expected: restorePhrase(part) },
    );
  await ports.checkDestination(plan.destination);
  const started = await ports.jobs.start(
    backupRestoreJob,
    {
      plan: plan.name,
      destination: plan.destination,
      snapshot: request.snapshot,
      part,
      paths: checked.paths,
      folder,
    },
    {
      target: part.kind === 'share' ? `share:${part.name}` : `stack:${part.name}`,
      auditOperation: 'backups.restore',
    },
  );
  return started.view;
}
