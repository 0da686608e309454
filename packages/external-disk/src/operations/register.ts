import { AppError, badRequest } from '@appliance/common';
import { checkRegister } from '../core/check-register.ts';
import { toExternalDisk } from '../core/external-disk.ts';
import { isValidLabel, LABEL_RULE } from '../core/label.ts';
import type { ExternalDisk } from '../core/types.ts';
import { diskLockKey, externalLabelLockKey } from '../keyed-lock.ts';
import type { ExternalDiskDeps } from '../ports.ts';

export interface RegisterRequest {
  device: string;
  label: string;
  backupDestination?: boolean | null;
}

/** A kernel path (03 §6): `..`, `/dev/disk/by-id/…` and `/dev/mapper/…` fail here. */
export const DEVICE_PATTERN = /^\/dev\/[a-z][a-z0-9]{0,31}$/;

/**
 * Register checks 3–8 of 07 §4 after the body, then the row and its audit row in one transaction.
 * It holds the disk's and the label's lock meanwhile, so a format of the same disk or label never
 * races a registration (`409 disk_busy`).
 */
export async function registerExternal(
  deps: Pick<ExternalDiskDeps, 'inventory' | 'store' | 'clock' | 'locks'>,
  request: RegisterRequest,
): Promise<ExternalDisk> {
  if (!DEVICE_PATTERN.test(request.device)) {
    throw badRequest([{ path: 'device', message: 'must be a kernel path such as /dev/sde' }]);
  }
  if (!isValidLabel(request.label)) throw badRequest([{ path: 'label', message: LABEL_RULE }]);
  const busy = () =>
    new AppError(
      409,
      'disk_busy',
      `Another operation is using ${request.device} or the label "${request.label}" right now: wait for it to finish, then try again.`,
      { device: request.device },
    );
  const keys = [diskLockKey(request.device), externalLabelLockKey(request.label)];
  return deps.locks.tryRun(keys, busy, () => register(deps, request));
}

async function register(
  deps: Pick<ExternalDiskDeps, 'inventory' | 'store' | 'clock'>,
  request: RegisterRequest,
): Promise<ExternalDisk> {
  const [inventory, rows, slots] = await Promise.all([
    deps.inventory.read(),
    deps.store.listRows(),
    deps.store.listArraySlots(),
  ]);
  const newRow = checkRegister(
    { device: request.device, label: request.label, backupDestination: request.backupDestination ?? false },
    inventory.disks,
    rows,
    slots,
  );
  const row = await deps.store.insertRegistration(newRow, deps.clock.now().toISOString());
  const disk = inventory.disks.find((d) => d.device === request.device) ?? null;
  return toExternalDisk(row.label, row, disk);
}
