import { AppError, badRequest, type DiskInventoryEntry, missingTools } from '@appliance/common';
import { type ApprovedFormat, checkFormat } from '../core/check-format.ts';
import { identityColumns } from '../core/check-register.ts';
import { toolsFor } from '../core/commands.ts';
import { toExternalDisk } from '../core/external-disk.ts';
import { isValidLabel, LABEL_RULE } from '../core/label.ts';
import { resolveLabel } from '../core/resolve.ts';
import { DEFAULT_FILESYSTEM, type ExternalDisk, type ExternalFilesystem } from '../core/types.ts';
import { diskLockKey, externalLabelLockKey } from '../keyed-lock.ts';
import { runFormat, verifyTargets } from '../node/format-runner.ts';
import { probeDisk } from '../node/probe.ts';
import { missingToolRefusal } from '../node/tools.ts';
import type { ExternalDiskDeps } from '../ports.ts';

export interface FormatRequest {
  label: string;
  filesystem?: ExternalFilesystem | null;
  confirmation?: string | null;
}

export interface FormatOutcome {
  disk: ExternalDisk;
  /** Wall time of the mkfs run as the runner saw it (the benchmark subtracts it). */
  mkfsMs: number;
}

/**
 * `POST /disks/external/:label/format` from check 2 on (07 §6.3). The route has already parsed
 * the body; the label is checked again here because this is also a library entry point.
 */
export async function formatExternal(deps: ExternalDiskDeps, request: FormatRequest): Promise<FormatOutcome> {
  try {
    return await format(deps, request);
  } catch (err) {
    // Refusals write nothing (no row, no audit row): they are logged only (07 §6.3).
    if (err instanceof AppError && err.status < 500) {
      deps.log.info('external disk format refused', {
        label: request.label,
        code: err.code,
        details: err.details,
      });
    }
    throw err;
  }
}

async function format(deps: ExternalDiskDeps, request: FormatRequest): Promise<FormatOutcome> {
  const { label } = request;
  // 2
  if (!isValidLabel(label)) throw badRequest([{ path: 'label', message: LABEL_RULE }]);
  const filesystem = request.filesystem ?? DEFAULT_FILESYSTEM;
  // 4
  // the runner's own lookup: a tool it would not find can never pass this check (then erase a disk)
  const missing = await missingTools(deps.runner, toolsFor(filesystem));
  if (missing.length > 0) throw missingToolRefusal(missing);
  // 5–13 on arrival
  const first = await checkAgainstFreshFacts(deps, request, filesystem, null);
  // 14
  const busy = () =>
    new AppError(
      409,
      'disk_busy',
      `Another operation is writing to ${first.disk.device} right now: wait for it to finish, then try again.`,
      { device: first.disk.device },
    );
  return deps.locks.tryRun([diskLockKey(first.disk.device), externalLabelLockKey(label)], busy, async () => {
    const release = deps.holdDevice?.(first.disk.device) ?? (() => undefined);
    try {
      // 15: the same checks on a new inventory plus direct probes, under the lock
      const approved = await checkAgainstFreshFacts(deps, request, filesystem, first);
      if (!sameDisk(first, approved)) throw diskChanged(first.disk.device);
      await verifyTargets(deps, approved.disk);
      // 16
      return await writeAndRecord(deps, approved);
    } finally {
      release();
    }
  });
}

/**
 * Reads the facts (inventory, registrations, array rows) and runs checks 6–13. With `previous`
 * (the re-check under the lock), the disk found on arrival and its partitions are probed directly
 * with `blkid -p` while the new inventory is read; if the disk's nodes changed meanwhile, the
 * nodes found now are probed again, so the probes always cover what the format will wipe.
 */
async function checkAgainstFreshFacts(
  deps: ExternalDiskDeps,
  request: FormatRequest,
  filesystem: ExternalFilesystem,
  previous: ApprovedFormat | null,
): Promise<ApprovedFormat> {
  const early = previous ? probeDisk(deps.runner, previous.disk) : Promise.resolve([]);
  const [inventory, rows, slots, earlyProbes] = await Promise.all([
    deps.inventory.read(),
    deps.store.listRows(),
    deps.store.listArraySlots(),
    early,
  ]);
  const resolved = resolveLabel(request.label, inventory.disks, rows);
  const probes =
    previous && nodesOf(resolved.disk) !== nodesOf(previous.disk)
      ? await probeDisk(deps.runner, resolved.disk)
      : earlyProbes;
  return checkFormat({ resolved, slots, filesystem, confirmation: request.confirmation, probes });
}

const nodesOf = (disk: DiskInventoryEntry): string =>
  [disk.device, ...disk.partitions.map((p) => p.device)].join(' ');

/** The disk found under the lock is the one checked on arrival, with the same facts. */
function sameDisk(a: ApprovedFormat, b: ApprovedFormat): boolean {
  const x: DiskInventoryEntry = a.disk;
  const y: DiskInventoryEntry = b.disk;
  return (
    (a.row?.id ?? null) === (b.row?.id ?? null) &&
    x.device === y.device &&
    x.sizeBytes === y.sizeBytes &&
    x.wwn === y.wwn &&
    x.serial === y.serial &&
    x.byIdName === y.byIdName &&
    x.fsUuid === y.fsUuid
  );
}

const diskChanged = (device: string): AppError =>
  new AppError(
    409,
    'disk_changed',
    `The disk behind ${device} changed while the format was being checked: nothing was written. Check the disk list and try again.`,
    { device },
  );

async function writeAndRecord(deps: ExternalDiskDeps, approved: ApprovedFormat): Promise<FormatOutcome> {
  const { disk, label, filesystem } = approved;
  const identity = identityColumns(disk);
  // Before the first write, the row stops claiming the old filesystem (see recordFormatStart).
  const { filesystem: _fs, fsUuid: _uuid, ...identityOnly } = identity;
  const rowId = await deps.store.recordFormatStart({
    rowId: approved.row?.id ?? null,
    label,
    columns: identityOnly,
    at: deps.clock.now().toISOString(),
  });
  const result = await runFormat(deps, disk, filesystem, label);
  const at = deps.clock.now().toISOString();
  const columns = result.ok
    ? { ...identity, filesystem, fsUuid: result.fsUuid }
    : { ...identity, filesystem: result.mkfsDone ? filesystem : null, fsUuid: null };
  const row = await deps.store.recordFormat({
    rowId,
    label,
    columns,
    formattedAt: result.ok ? at : null,
    audit: {
      at,
      outcome: result.ok ? 'ok' : 'failed',
      details: result.ok
        ? { device: disk.device, filesystem }
        : { device: disk.device, filesystem, step: result.step },
    },
  });
  if (!result.ok) {
    throw new AppError(
      500,
      'format_failed',
      result.step === 'read_uuid'
        ? `${disk.device} was formatted as ${filesystem} but its new UUID could not be read back: format it again.`
        : `Formatting ${disk.device} failed while running ${result.step}: check the disk and its cable, then format it again.`,
      { step: result.step, exitCode: result.exitCode },
    );
  }
  const formatted: DiskInventoryEntry = {
    ...disk,
    filesystem,
    label,
    fsUuid: result.fsUuid,
    fsDevice: disk.device,
    partitions: [],
    mountpoints: [],
    holders: [],
    inUse: false,
  };
  return { disk: toExternalDisk(label, row, formatted), mkfsMs: result.mkfsMs };
}
