/**
 * Array setup (08 §9.3) over ports: the tools, the pure checks over a fresh inventory and the
 * rows, then under every disk's lock the checks again, format + mount (`executeArraySetup`), and
 * the rows recorded in one transaction; a failed record removes the mount units it wrote and
 * unmounts what it mounted. The caller holds the `array` group while it runs.
 */
import { type AppError, conflict, diskLockKey, isAppError } from '@appliance/common';
import { type ArraySetupPlan, type ArraySetupRequest, planArraySetup } from '../core/array-setup.ts';
import { toAppError } from '../core/to-app-error.ts';
import {
  type ArraySetupResult,
  checkSetupTools,
  executeArraySetup,
  undoMounts,
} from '../node/array-setup.ts';
import { removeMountUnits } from '../node/mount-units.ts';
import type { DiskJobPorts } from '../ports.ts';

/** A progress reporter of one setup (the server publishes `operation: "array.create"` events). */
export interface SetupProgress {
  update(event: Record<string, unknown>): void;
  finish(event: Record<string, unknown>): void;
}

export type ArraySetupPorts = Pick<
  DiskJobPorts,
  'paths' | 'runner' | 'inventory' | 'locks' | 'generated' | 'log' | 'labMode'
> & {
  slots: Pick<DiskJobPorts['slots'], 'listSlots' | 'listExternals'>;
  /** Records the new array's rows and settings in ONE transaction (refusing `array_exists`). */
  recordArray(setup: { plan: ArraySetupPlan; result: ArraySetupResult }): Promise<void>;
  /** A progress reporter for this setup (created under the locks). */
  progress?(): SetupProgress;
};

/** The pure checks of 08 §9.3 steps 3–6 over a fresh inventory and the current rows. */
async function checkSetup(ports: ArraySetupPorts, request: ArraySetupRequest): Promise<ArraySetupPlan> {
  const inventory = await ports.inventory.read();
  const result = planArraySetup({
    request,
    rows: ports.slots.listSlots(),
    inventory,
    externals: ports.slots.listExternals(),
  });
  if (result.refusal) throw toAppError(result.refusal);
  return result.plan;
}

/** Sets up the array: checks in order, per-disk locks, format + mount, one transaction. */
export async function setupArray(
  ports: ArraySetupPorts,
  request: ArraySetupRequest,
): Promise<ArraySetupResult> {
  await checkSetupTools(ports.runner, [
    ...new Set(request.disks.map((d) => (d.role === 'parity' ? 'xfs' : (d.filesystem ?? 'xfs')))),
  ]);
  await checkSetup(ports, request);
  const keys = request.disks.map((d) => diskLockKey(d.device));
  const busy = (): AppError =>
    conflict(
      'disk_busy',
      'Another operation is using one of these disks: wait for it to finish, then try again.',
    );
  return ports.locks.tryRun(keys, busy, async () => {
    const plan = await checkSetup(ports, request); // re-run under the locks
    const progress = ports.progress?.();
    const log = (message: string, fields?: Record<string, unknown>) => ports.log.warn(message, fields);
    let result: ArraySetupResult;
    try {
      result = await executeArraySetup(plan, {
        paths: ports.paths,
        runner: ports.runner,
        onProgress: (e) => progress?.update({ ...e }),
        // boot-persistent mount units only outside lab mode and without a root prefix (08 §9.3)
        labMode: ports.labMode,
        log,
      });
    } catch (err) {
      progress?.finish({ ok: false, step: isAppError(err) ? err.details?.['step'] : undefined });
      if (!isAppError(err)) ports.log.error('array setup failed', { error: String(err) });
      throw err;
    }
    try {
      await ports.recordArray({ plan, result });
    } catch (err) {
      if (result.mountUnits) await removeMountUnits(result.mountUnits, { runner: ports.runner, log });
      await undoMounts(ports.runner, result.mounted);
      progress?.finish({ ok: false, step: 'record' });
      throw err;
    }
    // What the service wrote, for the drift watcher (issue 22).
    ports.generated.recordQuietly(ports.paths.snapraidConf, result.snapraidConf);
    for (const file of result.mountUnits?.files ?? []) ports.generated.recordQuietly(file);
    progress?.finish({ ok: true });
    return result;
  });
}
