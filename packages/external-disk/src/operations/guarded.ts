/**
 * The format, mount and eject as the service runs them. Each also holds the disk's backup group
 * while it holds the disk lock (07 §6.3 check 14, right after the disk lock): none of them runs
 * while a backup, drill or restore uses the disk (`job_running`), none of those starts meanwhile,
 * and two of them on one disk still answer `disk_busy`. A format also reports progress (08 §12)
 * from its first write on: a refused format publishes nothing.
 */
import type { ExternalDisk } from '../core/types.ts';
import type { DiskLocks, ExternalDiskDeps } from '../ports.ts';
import { type FormatRequest, formatExternal } from './format.ts';
import { type EjectOutcome, type MountDeps, ejectExternal, mountExternal } from './mount.ts';

/** What holds the backup group of an operation, and how it is named to whoever waits for it. */
export interface GuardedOperation {
  type: string;
  title: string;
}

export const FORMAT_OPERATION: GuardedOperation = {
  type: 'disks.external.format',
  title: 'a format of this external disk',
};
export const MOUNT_OPERATION: GuardedOperation = {
  type: 'disks.external.mount',
  title: 'a mount of this external disk',
};
export const EJECT_OPERATION: GuardedOperation = {
  type: 'disks.external.eject',
  title: 'an eject of this external disk',
};

/** One operation's progress events (the service's event stream). */
export interface ProgressReporter {
  update(progress: Record<string, unknown>): void;
  finish(progress: Record<string, unknown>): void;
}

/** The ports beyond the operations' own. */
export interface GuardPorts {
  /**
   * Holds the backup group of the external disk `label` for `what` and returns the release;
   * throws `job_running` while a backup, drill or restore uses the disk.
   */
  holdBackups(label: string, what: GuardedOperation): () => void;
  /** Opens the progress events of `operation` on `target` (called at the first update only). */
  openProgress(operation: string, target: string): ProgressReporter;
}

/** `locks`, also holding the disk's backup group while the disk lock is held. */
export function holdingBackups(
  locks: DiskLocks,
  holdBackups: GuardPorts['holdBackups'],
  label: string,
  what: GuardedOperation,
): DiskLocks {
  return {
    tryRun: (keys, busy, fn) =>
      locks.tryRun(keys, busy, async () => {
        const release = holdBackups(label, what);
        try {
          return await fn();
        } finally {
          release();
        }
      }),
  };
}

/** A progress reporter that opens nothing until the first update; the finish repeats the last one. */
export function lazyProgress(open: () => ProgressReporter) {
  let reporter: ProgressReporter | null = null;
  let last: Record<string, unknown> = {};
  return {
    update(progress: Record<string, unknown>) {
      reporter ??= open();
      last = progress;
      reporter.update(progress);
    },
    finish(ok: boolean) {
      reporter?.finish(ok ? { ...last, stepIndex: last['steps'], ok } : { ...last, ok });
    },
  };
}

/** `formatExternal` holding the backup group, with progress (`step`, `stepIndex`, `steps`, then `ok`). */
export async function formatExternalGuarded(
  deps: ExternalDiskDeps & GuardPorts,
  request: FormatRequest,
): Promise<ExternalDisk> {
  const { label } = request;
  const progress = lazyProgress(() => deps.openProgress(FORMAT_OPERATION.type, label));
  try {
    const { disk } = await formatExternal(
      {
        ...deps,
        locks: holdingBackups(deps.locks, deps.holdBackups, label, FORMAT_OPERATION),
        onStep: (step, index, count) => progress.update({ step, stepIndex: index + 1, steps: count }),
      },
      request,
    );
    progress.finish(true);
    return disk;
  } catch (err) {
    progress.finish(false);
    throw err;
  }
}

/** `mountExternal` holding the backup group. */
export const mountExternalGuarded = (
  deps: MountDeps & GuardPorts,
  label: string,
): Promise<{ disk: ExternalDisk; mounted: boolean }> =>
  mountExternal(
    { ...deps, locks: holdingBackups(deps.locks, deps.holdBackups, label, MOUNT_OPERATION) },
    label,
  );

/** `ejectExternal` holding the backup group. */
export const ejectExternalGuarded = (deps: MountDeps & GuardPorts, label: string): Promise<EjectOutcome> =>
  ejectExternal(
    { ...deps, locks: holdingBackups(deps.locks, deps.holdBackups, label, EJECT_OPERATION) },
    label,
  );
