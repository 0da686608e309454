import type { DiskInventory, DiskInventoryEntry, StoredIdentity } from './model.ts';

/**
 * The identity match rule (03 §2.3). A stored identity `A` and an inventory entry `B` are the
 * same disk by the first case that applies:
 *   1. both have a WWN → the WWNs are equal;
 *   2. else both are strong (not weak) and have a serial → the serials are equal;
 *   3. else both fs UUIDs are non-null and equal, and the sizes are equal when both are known.
 * A weak disk's serial is shown, never matched.
 */
export function matchesIdentity(stored: StoredIdentity, entry: IdentityFacts): boolean {
  if (nonEmpty(stored.wwn) && nonEmpty(entry.wwn)) return stored.wwn === entry.wwn;
  if (!stored.weakIdentity && !entry.weakIdentity && nonEmpty(stored.serial) && nonEmpty(entry.serial)) {
    return stored.serial === entry.serial;
  }
  if (!nonEmpty(stored.fsUuid) || !nonEmpty(entry.fsUuid) || stored.fsUuid !== entry.fsUuid) return false;
  if (stored.sizeBytes !== null && entry.sizeBytes !== null && stored.sizeBytes !== entry.sizeBytes)
    return false;
  return true;
}

/**
 * The bare-metal match (01 §4.9 step 2): which attached disk an archived array row is, on a box
 * that will mount it without asking. Stricter than `matchesIdentity` in one way: a filesystem UUID
 * identifies a disk only between two weak identities. A row recorded with a strong identity (a
 * WWN, or the serial of a directly attached disk) is only ever matched by that same strong
 * identity, and a weak row never claims a strong disk: a disk that merely carries the filesystem
 * (a copy, a clone, the old disk moved into a USB bridge) is not `matched`, so it is never mounted
 * in the row's place. A weak disk's serial is still never matched (03 §2.3).
 */
export function matchesRecordedIdentity(stored: StoredIdentity, entry: IdentityFacts): boolean {
  if (nonEmpty(stored.wwn) && nonEmpty(entry.wwn)) return stored.wwn === entry.wwn;
  if (!stored.weakIdentity && !entry.weakIdentity && nonEmpty(stored.serial) && nonEmpty(entry.serial)) {
    return stored.serial === entry.serial;
  }
  if (isStrong(stored) || isStrong(entry)) return false;
  return matchesIdentity(stored, entry);
}

/** A WWN, or not weak (a directly attached disk: its serial is trusted). */
const isStrong = (x: { wwn: string | null; weakIdentity: boolean }): boolean =>
  nonEmpty(x.wwn) || !x.weakIdentity;

/** The fields of an inventory entry the match rule reads (an entry satisfies it). */
export interface IdentityFacts {
  wwn: string | null;
  serial: string | null;
  weakIdentity: boolean;
  fsUuid: string | null;
  sizeBytes: number | null;
}

/** Result of resolving a stored identity against a fresh inventory. */
export type DiskMatch =
  | { status: 'found'; disk: DiskInventoryEntry }
  | { status: 'missing' }
  /** Two or more entries match: the row counts as missing; `candidates` names them all. */
  | { status: 'ambiguous'; candidates: DiskInventoryEntry[] };

/**
 * Finds the inventory entry of a stored identity. Never trusts a stored `/dev/sdX`: only the
 * identity rule decides. Two matches → `ambiguous` (callers treat it as missing and name the
 * candidates in `details.candidates`).
 */
export function findDisk(
  stored: StoredIdentity,
  inventory: DiskInventory | readonly DiskInventoryEntry[],
): DiskMatch {
  const disks = Array.isArray(inventory) ? inventory : (inventory as DiskInventory).disks;
  const hits = disks.filter((d) => matchesIdentity(stored, d));
  if (hits.length === 0) return { status: 'missing' };
  if (hits.length > 1) return { status: 'ambiguous', candidates: hits };
  return { status: 'found', disk: hits[0] as DiskInventoryEntry };
}

/** The entry when exactly one matches, else null (missing or ambiguous). */
export function findDiskEntry(
  stored: StoredIdentity,
  inventory: DiskInventory | readonly DiskInventoryEntry[],
): DiskInventoryEntry | null {
  const m = findDisk(stored, inventory);
  return m.status === 'found' ? m.disk : null;
}

/** The stored identity of an inventory entry (what a row records when a disk is assigned). */
export function identityOf(entry: DiskInventoryEntry): StoredIdentity {
  return {
    wwn: entry.wwn,
    serial: entry.serial,
    weakIdentity: entry.weakIdentity,
    fsUuid: entry.fsUuid,
    sizeBytes: entry.sizeBytes,
  };
}

function nonEmpty(value: string | null | undefined): value is string {
  return typeof value === 'string' && value !== '';
}
