import { confirmationMatches, type DiskInventoryEntry, erasePhrase } from '@appliance/common';
import { invalidPlan } from './refusals.ts';
import { checkNewDisk } from './replacement-checks.ts';
import type {
  ArrayFilesystem,
  ArraySlot,
  DiskInventory,
  ExternalDiskRecord,
  Refusal,
  SlotRole,
} from './types.ts';

export const CREATE_POLICIES = ['mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'] as const;
export type CreatePolicy = (typeof CREATE_POLICIES)[number];

export interface ArraySetupDisk {
  device: string;
  role: SlotRole;
  filesystem?: ArrayFilesystem | null | undefined;
}

export interface ArraySetupRequest {
  disks: readonly ArraySetupDisk[];
  createPolicy?: CreatePolicy | null | undefined;
  confirmation?: unknown;
}

/** One disk of the setup, in execution order (parity, data, cache). */
export interface PlannedMember {
  device: string;
  role: SlotRole;
  roleIndex: number;
  filesystem: ArrayFilesystem;
  /** `/mnt/parityN`, `/mnt/diskN`, `/mnt/cache` (logical). */
  mountpoint: string;
  /** mkfs label: `parityN`, `diskN`, `cache`. */
  label: string;
  entry: DiskInventoryEntry;
}

export interface ArraySetupPlan {
  members: PlannedMember[];
  createPolicy: CreatePolicy;
  confirmation: string;
}

/** 08 §9.3 step 1: any row means an array (or a half-recorded one) exists. */
export function checkNoArray(rows: readonly ArraySlot[]): Refusal | null {
  if (rows.length === 0) return null;
  return {
    status: 409,
    code: 'array_exists',
    message: 'An array is already set up: change it with the upgrade, replace or removal operations instead.',
  };
}

/**
 * The pure checks of array setup (08 §9.3 steps 1 and 3–6) over a fresh inventory; the adapter
 * checks the tools (step 2) and takes the per-disk locks (step 7), re-running this under them.
 */
export function planArraySetup(input: {
  request: ArraySetupRequest;
  rows: readonly ArraySlot[];
  inventory: DiskInventory;
  externals: readonly ExternalDiskRecord[];
}): { plan: ArraySetupPlan; refusal?: undefined } | { refusal: Refusal; plan?: undefined } {
  const { request, inventory } = input;
  const exists = checkNoArray(input.rows);
  if (exists) return { refusal: exists };

  const seen = new Set<string>();
  for (const [i, d] of request.disks.entries()) {
    if (seen.has(d.device)) {
      return {
        refusal: {
          status: 400,
          code: 'bad_request',
          message: `${d.device} is listed twice: list each disk once.`,
          details: { issues: [{ path: `disks.${i}.device`, message: 'listed twice' }] },
        },
      };
    }
    seen.add(d.device);
  }

  const entries: DiskInventoryEntry[] = [];
  for (const d of request.disks) {
    const base = checkNewDisk(d.device, inventory, input.externals); // R1–R3, R7, R4
    if (base.refusal) return { refusal: base.refusal };
    entries.push(base.entry);
  }

  const byRole = (role: SlotRole) =>
    request.disks
      .map((d, i) => ({ d, entry: entries[i] as DiskInventoryEntry }))
      .filter((x) => x.d.role === role);
  const parity = byRole('parity');
  const data = byRole('data');
  const cache = byRole('cache');
  if (parity.length < 1 || parity.length > 2) {
    return {
      refusal: invalidPlan(
        'parity_count',
        `An array has one or two parity disks; this request has ${parity.length}.`,
        { count: parity.length },
      ),
    };
  }
  if (data.length === 0)
    return {
      refusal: invalidPlan(
        'no_data_disk',
        'An array needs at least one data disk: add one with role "data".',
      ),
    };
  if (cache.length > 1) {
    return {
      refusal: invalidPlan(
        'cache_count',
        `An array has at most one cache disk; this request has ${cache.length}.`,
        { count: cache.length },
      ),
    };
  }
  for (const p of parity) {
    if (p.d.filesystem != null && p.d.filesystem !== 'xfs') {
      return {
        refusal: invalidPlan(
          'parity_not_xfs',
          `A parity disk is always formatted as xfs: leave "filesystem" out for ${p.d.device} or send "xfs".`,
          { device: p.d.device },
        ),
      };
    }
    if (p.entry.weakIdentity && p.entry.lab !== true) {
      return {
        refusal: invalidPlan(
          'parity_weak_identity',
          `${p.d.device} has no WWN or serial the appliance can rely on (USB bridge or card reader); a parity disk must be attached directly.`,
          { device: p.d.device },
        ),
      };
    }
  }
  const largest = [...data].sort((a, b) => b.entry.sizeBytes - a.entry.sizeBytes)[0];
  for (const p of parity) {
    if (largest && p.entry.sizeBytes < largest.entry.sizeBytes) {
      return {
        refusal: invalidPlan(
          'parity_too_small',
          `The parity disk ${p.d.device} (${p.entry.sizeBytes} bytes) is smaller than the data disk ${largest.d.device} (${largest.entry.sizeBytes} bytes): choose a larger parity disk.`,
          { device: p.d.device, requiredBytes: largest.entry.sizeBytes, dataDevice: largest.d.device },
        ),
      };
    }
  }

  const confirmation = erasePhrase(request.disks.map((d) => d.device));
  if (!confirmationMatches(request.confirmation, confirmation)) {
    return {
      refusal: {
        status: 409,
        code: 'confirmation_required',
        message: `Type the confirmation exactly as shown: ${confirmation}`,
        details: { expected: confirmation },
      },
    };
  }

  const members: PlannedMember[] = [
    ...parity.map((x, i) =>
      member(x.d, x.entry, 'parity', i + 1, 'xfs', `/mnt/parity${i + 1}`, `parity${i + 1}`),
    ),
    ...data.map((x, i) =>
      member(x.d, x.entry, 'data', i + 1, x.d.filesystem ?? 'xfs', `/mnt/disk${i + 1}`, `disk${i + 1}`),
    ),
    ...cache.map((x) => member(x.d, x.entry, 'cache', 1, x.d.filesystem ?? 'xfs', '/mnt/cache', 'cache')),
  ];
  return { plan: { members, createPolicy: request.createPolicy ?? 'mfs', confirmation } };
}

function member(
  d: ArraySetupDisk,
  entry: DiskInventoryEntry,
  role: SlotRole,
  roleIndex: number,
  filesystem: ArrayFilesystem,
  mountpoint: string,
  label: string,
): PlannedMember {
  return { device: d.device, role, roleIndex, filesystem, mountpoint, label, entry };
}
