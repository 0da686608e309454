/**
 * The stack routes' requests (issue 35): the checks every stack job and values edit pass first,
 * then the job started (start, stop, restart, remove, update) or the values edited and a running
 * stack restarted. The jobs' work itself is `jobs/stack-jobs.ts`.
 */
import { Refusal } from '@appliance/common';
import type { JobView } from '@appliance/jobs';
import { STACK_JOBS, type StackJobKind, type StackJobParams } from '../jobs/definitions.ts';
import { noCoveringPlan } from '../jobs/errors.ts';
import { assertNoBackupOf } from '../jobs/stack-jobs.ts';
import { isStackRunning } from '../jobs/views.ts';
import { checkRemoveConfirmation } from '../stacks/core/confirm.ts';
import { checkPortsFor } from '../stacks/operations/lifecycle.ts';
import { requireStack } from '../stacks/operations/state.ts';
import type { AppsPorts } from './ports.ts';

/** The checks every stack job and values edit pass first: the stack exists, no backup or job of it runs. */
export async function assertStackFree(ports: AppsPorts, name: string): Promise<void> {
  await requireStack(ports.stackJobs.stacks, name);
  assertNoBackupOf(ports.stackJobs, name);
  ports.jobs.assertFree([`stack:${name}`]);
}

const startKind = (ports: AppsPorts, kind: StackJobKind, params: StackJobParams) =>
  ports.jobs.start(STACK_JOBS[kind], params, {
    target: `stacks/${params.stack}`,
    auditOperation: STACK_JOBS[kind].type,
  });

/** Starts a stack job after the checks; a start or restart is refused (port_in_use) when another holder has one of its ports. */
export async function startStackJob(
  ports: AppsPorts,
  kind: StackJobKind,
  name: string,
  extra: Omit<StackJobParams, 'stack'> = {},
): Promise<JobView<StackJobParams, unknown>> {
  await assertStackFree(ports, name);
  if (kind === 'start' || kind === 'restart') await checkPortsFor(ports.stackJobs.stacks, name, kind);
  return (await startKind(ports, kind, { stack: name, ...extra })).view;
}

/** DELETE /stacks/:name: the typed confirmation first (400 confirmation_mismatch), then the removal job. */
export async function requestStackRemoval(
  ports: AppsPorts,
  name: string,
  body: { confirm: string; removeData?: boolean },
) {
  checkRemoveConfirmation(name, body.confirm, body.removeData === true);
  return startStackJob(ports, 'remove', name, {
    confirm: body.confirm,
    removeData: body.removeData === true,
  });
}

/** POST /stacks/:name/update: with `snapshot`, the backup plan that holds the stack runs first (refused when none does). */
export async function requestStackUpdate(
  ports: AppsPorts,
  name: string,
  body: { healthTimeoutSeconds?: number; snapshot?: boolean },
) {
  let snapshotPlan: string | undefined;
  if (body.snapshot === true) {
    const plan = ports.stackJobs.backups.planCovering(name);
    if (!plan) throw noCoveringPlan(name);
    snapshotPlan = plan.name;
  }
  return startStackJob(ports, 'update', name, {
    ...(body.healthTimeoutSeconds !== undefined ? { healthTimeoutSeconds: body.healthTimeoutSeconds } : {}),
    ...(snapshotPlan ? { snapshotPlan } : {}),
  });
}

export interface ValuesRequest {
  values?: Record<string, string>;
  regenerate?: string[];
}

/**
 * PUT /stacks/:name/values through the installer (same rules as install), audited (`stack.values`;
 * a failure of the service too, a refusal of the request not); a running stack whose inputs
 * changed is restarted by a start job (compose up -d recreates what changed).
 */
export async function editStackValues(ports: AppsPorts, name: string, body: ValuesRequest) {
  await assertStackFree(ports, name);
  const audit = (outcome: 'ok' | 'failed', details: Record<string, unknown>) =>
    ports.audit({ operation: 'stack.values', target: `stacks/${name}`, outcome, details });
  let result: Awaited<ReturnType<AppsPorts['installer']['editValues']>>;
  try {
    result = await ports.installer.editValues(name, body);
    await audit('ok', { changed: result.changed });
  } catch (e) {
    if (ports.statusOf(e) < 500) throw e;
    await audit('failed', { code: e instanceof Refusal ? e.code : 'internal' });
    throw e;
  }
  const restart =
    result.changed.length > 0 && (await isStackRunning(ports.stackJobs.stacks, name))
      ? (await startKind(ports, 'start', { stack: name })).view
      : null;
  return { ...result, restart };
}
