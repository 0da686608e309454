/**
 * The stack jobs' work: the guard (no backup of the stack running), the lifecycle, removal and
 * update operations with their progress, the snapshot before an update, and the image-update
 * conditions an update clears or raises again.
 */
import { Refusal } from '@appliance/common';
import type { JobHandle, JobImplementation } from '@appliance/jobs';
import { IMAGE_KEY_PREFIX } from '@appliance/watchers';
import type { OperationHooks } from '../stacks/operations/lifecycle.ts';
import { runLifecycle } from '../stacks/operations/lifecycle.ts';
import { removeStack } from '../stacks/operations/remove.ts';
import { updateStack } from '../stacks/operations/update.ts';
import type { StackJobKind, StackJobParams, StackJobResult } from './definitions.ts';
import { snapshotFailed, snapshotPlanGone, stackBackupRunning } from './errors.ts';
import type { StackJobPorts } from './ports.ts';
import { withEdited } from './views.ts';

const PHASE: Record<StackJobKind, string> = {
  start: 'starting',
  stop: 'stopping',
  restart: 'restarting',
  remove: 'removing',
  update: 'updating',
};

/** A running backup (or restore) that holds the stack → refused `stack_backup_running`. */
export function assertNoBackupOf(ports: Pick<StackJobPorts, 'backups'>, name: string): void {
  const job = ports.backups.runningOf(name);
  if (job) throw stackBackupRunning(name, job.id);
}

/** The job runner's implementation of one stack job kind (`runner.register(STACK_JOBS[kind], …)`). */
export function stackJobImplementation(
  ports: () => StackJobPorts | Promise<StackJobPorts>,
  kind: StackJobKind,
): JobImplementation<StackJobParams, StackJobResult> {
  return {
    run: async (handle, params) => {
      const p = await ports();
      assertNoBackupOf(p, params.stack);
      return runStackJob(p, handle, kind, params);
    },
  };
}

export async function runStackJob(
  ports: StackJobPorts,
  job: JobHandle,
  kind: StackJobKind,
  params: StackJobParams,
): Promise<StackJobResult> {
  const deps = ports.stacks;
  job.phase(PHASE[kind]);
  job.progress({ percent: 0 });
  const hooks: OperationHooks = {
    onService: (p) => job.progress({ percent: p.percent, service: p.service, action: p.action }),
    onOutput: (line) => job.output(line),
    onSpawn: (pid) => job.pid(pid),
    signal: job.signal,
  };
  try {
    if (kind === 'remove') {
      const result = await removeStack(
        deps,
        params.stack,
        { confirm: params.confirm ?? '', removeData: params.removeData === true },
        hooks,
      );
      await ports.forgetFile(`${deps.stackDir(params.stack)}/docker-compose.yml`);
      return result;
    }
    if (kind === 'update') return await runUpdate(ports, job, params, hooks);
    const state = await runLifecycle(deps, params.stack, kind, hooks);
    job.progress({ percent: 100 });
    return withEdited(deps, state);
  } finally {
    job.pid(null);
  }
}

/**
 * An update: the covering backup plan first when asked (its run must succeed), then the
 * operation. Success clears the stack's `container_update_available` conditions; a failure raises
 * them again with the reason.
 */
async function runUpdate(
  ports: StackJobPorts,
  job: JobHandle,
  params: StackJobParams,
  hooks: OperationHooks,
) {
  const name = params.stack;
  if (params.snapshotPlan) {
    job.phase('snapshot');
    const plan = params.snapshotPlan;
    if (!ports.backups.hasPlan(plan)) throw snapshotPlanGone(plan);
    job.output(`taking a snapshot first: running the backup plan ${plan}`);
    const ended = await ports.backups.runPlan(plan);
    if (!ended) throw snapshotPlanGone(plan);
    if (ended.state !== 'succeeded') throw snapshotFailed(name, ended.jobId, ended.error ?? ended.state);
    job.output(`snapshot taken (backup job ${ended.jobId})`);
    job.phase('updating');
  }
  const prefix = `${IMAGE_KEY_PREFIX}${name}/`;
  const keys = await ports.conditions.openKeys(prefix);
  try {
    const result = await updateStack(
      ports.stacks,
      name,
      params.healthTimeoutSeconds !== undefined ? { healthTimeoutSeconds: params.healthTimeoutSeconds } : {},
      hooks,
    );
    for (const k of keys) await ports.conditions.clear(k);
    job.progress({ percent: 100 });
    return result;
  } catch (err) {
    const reason = err instanceof Refusal ? err.message : String(err);
    const services =
      err instanceof Refusal && typeof err.details?.['service'] === 'string' ? [err.details['service']] : [];
    const raise = keys.length > 0 ? keys : services.map((s) => `${prefix}${s}`);
    for (const k of raise) {
      const service = k.slice(prefix.length);
      await ports.conditions.clear(k);
      await ports.conditions.hold(
        k,
        {
          eventType: 'container_update_available',
          subject: `stack ${name}, service ${service}`,
          title: `Stack ${name}: the update of ${service} failed`,
          message: `A newer image is available for the stack ${name} (service ${service}), but applying it failed: ${reason}`,
        },
        'apps',
      );
    }
    throw err;
  }
}
