/**
 * Blockers (01 §4.5). Each code and message equals the import's refusal for the same archive on
 * the same box, so the import calls the same functions.
 */
import { AppError, conflict } from '@appliance/common';
import type { SchemaVersion, VersionRelation } from './schema-version.ts';

export type BlockerCode =
  | 'incompatible_archive'
  | 'archive_newer_version'
  | 'archive_other_installation'
  | 'archive_array_mismatch'
  | 'restore_path_unsafe';

export interface Blocker {
  code: BlockerCode;
  message: string;
}

/** The HTTP status the import refuses each blocker with. */
export const BLOCKER_STATUS: Record<BlockerCode, number> = {
  incompatible_archive: 400,
  archive_newer_version: 409,
  archive_other_installation: 409,
  archive_array_mismatch: 409,
  restore_path_unsafe: 409,
};

/** The import's refusal for a blocker. */
export const blockerError = (b: Blocker): AppError =>
  b.code === 'incompatible_archive' ? new AppError(400, b.code, b.message) : conflict(b.code, b.message);

export function newerVersionBlocker(
  archive: SchemaVersion,
  live: SchemaVersion,
  appVersion: string,
): Blocker {
  return {
    code: 'archive_newer_version',
    message: `The archive's database schema version ${archive.id} is newer than this installation's ${live.id}. Update this appliance to release ${appVersion} or later, then restore the archive.`,
  };
}

export function olderInPlaceBlocker(archive: SchemaVersion, live: SchemaVersion): Blocker {
  return {
    code: 'incompatible_archive',
    message: `The archive's database schema version ${archive.id} differs from this installation's ${live.id}. Export a new archive from this installation, or restore this archive onto a fresh install.`,
  };
}

export function failedUpgradeBlocker(archive: SchemaVersion, live: SchemaVersion, error: string): Blocker {
  return {
    code: 'incompatible_archive',
    message: `Upgrading the archive's database from schema version ${archive.id} to this installation's ${live.id} failed: ${error}. Export a new archive from a working installation.`,
  };
}

export const OTHER_INSTALLATION_MESSAGE =
  'The archive comes from another installation, and this box already has an array. It can only be restored onto a fresh install (a box with no array configured).';

export function otherInstallationBlocker(
  archiveCheck: string | null,
  liveCheck: string | null,
): Blocker | null {
  if (archiveCheck !== null && liveCheck !== null && archiveCheck === liveCheck) return null;
  return { code: 'archive_other_installation', message: OTHER_INSTALLATION_MESSAGE };
}

/** An `array_disks` row as the array comparison and the bare-metal matching read it. */
export interface ArrayDiskRow {
  role: string;
  roleIndex: number;
  device: string;
  fsUuid: string | null;
  wwn: string | null;
  serial: string | null;
  byIdName: string | null;
  weakIdentity: boolean;
  sizeBytes: number | null;
  mountpoint: string;
  removalState: string | null;
}

export const ROLE_ORDER = ['parity', 'data', 'cache'] as const;

const roleRank = (role: string) => {
  const i = (ROLE_ORDER as readonly string[]).indexOf(role);
  return i === -1 ? ROLE_ORDER.length : i;
};

/** Sorts rows parity, data, cache; then by roleIndex. */
export function slotOrder<T extends { role: string; roleIndex: number }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => roleRank(a.role) - roleRank(b.role) || a.roleIndex - b.roleIndex);
}

const slotName = (r: { role: string; roleIndex: number }) => `${r.role} disk ${r.roleIndex}`;
const FIELDS: readonly [string, (r: ArrayDiskRow) => string][] = [
  ['filesystem UUID', (r) => r.fsUuid ?? ''],
  ['WWN', (r) => r.wwn ?? ''],
  ['serial', (r) => r.serial ?? ''],
  ['removal state', (r) => r.removalState ?? ''],
];

/** `archive_array_mismatch` when the arrays differ (device path and size are ignored). */
export function arrayMismatchBlocker(
  live: readonly ArrayDiskRow[],
  archive: readonly ArrayDiskRow[],
): Blocker | null {
  const key = (r: ArrayDiskRow) => slotName(r);
  const archiveBySlot = new Map(archive.map((r) => [key(r), r]));
  const liveBySlot = new Map(live.map((r) => [key(r), r]));
  const slots = slotOrder([...live, ...archive.filter((r) => !liveBySlot.has(key(r)))]);
  const diffs: string[] = [];
  for (const slot of slots) {
    const l = liveBySlot.get(key(slot));
    const a = archiveBySlot.get(key(slot));
    if (l && !a)
      diffs.push(`the live array has ${key(l)} (filesystem ${l.fsUuid ?? ''}), which the archive does not`);
    else if (a && !l)
      diffs.push(`the archive has ${key(a)} (filesystem ${a.fsUuid ?? ''}), which the live array does not`);
    else if (l && a) {
      for (const [field, get] of FIELDS) {
        if (get(l) !== get(a)) {
          diffs.push(
            `${key(l)} differs in ${field}: live ${JSON.stringify(get(l))}, archive ${JSON.stringify(get(a))}`,
          );
        }
      }
    }
  }
  if (diffs.length === 0) return null;
  return {
    code: 'archive_array_mismatch',
    message: `The archive's array differs from this installation's array: ${diffs.join('; ')}. Only disk operations change the array; export a new archive.`,
  };
}

/**
 * The database check, top to bottom, stopping at the first refusal (§4.5). `upgradeError` is the
 * content failure of the staged upgrade on a fresh install (older archive).
 */
export function databaseBlocker(input: {
  relation: VersionRelation;
  archiveVersion: SchemaVersion;
  liveVersion: SchemaVersion;
  appVersion: string;
  fresh: boolean;
  upgradeError: string | null;
  archiveKeyCheck: string | null;
  liveKeyCheck: string | null;
  archiveDisks: readonly ArrayDiskRow[];
  liveDisks: readonly ArrayDiskRow[];
}): Blocker | null {
  const { relation, archiveVersion: a, liveVersion: l } = input;
  if (relation === 'newer') return newerVersionBlocker(a, l, input.appVersion);
  if (relation === 'older' && !input.fresh) return olderInPlaceBlocker(a, l);
  if (relation === 'older' && input.upgradeError !== null)
    return failedUpgradeBlocker(a, l, input.upgradeError);
  if (input.fresh) return null;
  return (
    otherInstallationBlocker(input.archiveKeyCheck, input.liveKeyCheck) ??
    arrayMismatchBlocker(input.liveDisks, input.archiveDisks)
  );
}
