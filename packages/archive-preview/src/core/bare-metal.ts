/**
 * Bare-metal disk matching (01 §4.9): which attached disks the archived array maps to on a fresh
 * install. A pure function of the recorded rows and the disk inventory (no device is opened).
 */
import { type DiskInventory, type DiskInventoryEntry, matchesRecordedIdentity } from '@appliance/common';
import { type ArrayDiskRow, slotOrder } from './blockers.ts';

export type DiskState = 'matched' | 'absent' | 'replaced' | 'ambiguous';

export interface BareMetalDisk {
  name: string;
  role: string;
  roleIndex: number;
  mountpoint: string;
  fsUuid: string;
  weakIdentity: boolean;
  state: DiskState;
  wwn?: string;
  serial?: string;
  byIdName?: string;
  sizeBytes?: number;
  device?: string;
}

export interface DiskMappingEntry {
  role: string;
  roleIndex: number;
  device: string;
}

export interface BareMetal {
  schemaUpgrade: boolean;
  disks: BareMetalDisk[];
  diskMapping: { disks: DiskMappingEntry[] };
}

/** Step 1: attached whole disks (loop devices only in lab mode); never the boot device. */
export function candidates(inventory: DiskInventory): DiskInventoryEntry[] {
  return inventory.disks.filter((d) => !d.boot && (d.lab !== true || inventory.labMode));
}

const nonEmpty = (s: string | null | undefined): s is string => typeof s === 'string' && s !== '';

export function diskName(r: ArrayDiskRow): string {
  const id = nonEmpty(r.wwn)
    ? `WWN ${r.wwn}`
    : nonEmpty(r.serial)
      ? `serial ${r.serial}`
      : `filesystem ${r.fsUuid ?? ''}`;
  return `${r.role} disk ${r.roleIndex} (${r.mountpoint}, ${id})`;
}

/**
 * Step 2 (01 §4.9): a recorded strong identity (WWN, serial) is only ever matched by the same strong
 * identity; a filesystem UUID decides only between two weak disks (@appliance/common). A disk that
 * only carries a row's filesystem is `replaced` below, never `matched`, so never in the mapping.
 */
const rowMatches = (r: ArrayDiskRow, d: DiskInventoryEntry) =>
  matchesRecordedIdentity(
    { wwn: r.wwn, serial: r.serial, weakIdentity: r.weakIdentity, fsUuid: r.fsUuid, sizeBytes: r.sizeBytes },
    d,
  );

export function matchDisks(
  recorded: readonly ArrayDiskRow[],
  inventory: DiskInventory,
  schemaUpgrade: boolean,
): BareMetal {
  const rows = slotOrder(recorded);
  const disks = candidates(inventory);
  // Step 3: each candidate claims the first row (in `rows` order) it matches.
  const claims = new Map<number, DiskInventoryEntry[]>();
  const claimed = new Set<DiskInventoryEntry>();
  for (const d of disks) {
    const i = rows.findIndex((r) => rowMatches(r, d));
    if (i === -1) continue;
    claims.set(i, [...(claims.get(i) ?? []), d]);
    claimed.add(d);
  }
  const out: BareMetalDisk[] = rows.map((r, i) => {
    const base: BareMetalDisk = {
      name: diskName(r),
      role: r.role,
      roleIndex: r.roleIndex,
      mountpoint: r.mountpoint,
      fsUuid: r.fsUuid ?? '',
      weakIdentity: r.weakIdentity,
      state: 'absent',
      ...(nonEmpty(r.wwn) ? { wwn: r.wwn } : {}),
      ...(nonEmpty(r.serial) ? { serial: r.serial } : {}),
      ...(nonEmpty(r.byIdName) ? { byIdName: r.byIdName } : {}),
      ...(r.sizeBytes !== null ? { sizeBytes: r.sizeBytes } : {}),
    };
    const claimants = claims.get(i) ?? [];
    if (claimants.length > 1) return { ...base, state: 'ambiguous' };
    const only = claimants[0];
    if (only) {
      const differs = nonEmpty(r.fsUuid) && nonEmpty(only.fsUuid) && r.fsUuid !== only.fsUuid;
      return { ...base, state: differs ? 'replaced' : 'matched', device: only.device };
    }
    if (nonEmpty(r.fsUuid)) {
      const same = disks.filter((d) => !claimed.has(d) && d.fsUuid === r.fsUuid);
      if (same.length === 1)
        return { ...base, state: 'replaced', device: (same[0] as DiskInventoryEntry).device };
      if (same.length > 1) return { ...base, state: 'ambiguous' };
    }
    return base;
  });
  const mapping = out
    .filter((d) => d.state === 'matched' && d.device !== undefined)
    .map((d) => ({ role: d.role, roleIndex: d.roleIndex, device: d.device as string }));
  return { schemaUpgrade, disks: out, diskMapping: { disks: mapping } };
}
