/**
 * The facts the share operations read, built from a store's plain rows: the environment of a
 * create or update (08 §6) and the access snapshot the Samba rendering and the access view read.
 */
import { type BranchDisk, hasCacheDisk } from '../access/branches.ts';
import type { AccessSnapshot } from '../access/core/effective-access.ts';
import type { ShareEnvironment } from '../access/core/share-definitions.ts';

/**
 * An array exists once its settings row or any slot does; a cache once a slot has the cache role.
 * `settings` is the array's settings row, or null while none is stored.
 */
export function shareEnvironmentOf(facts: {
  settings: { migrationPending: boolean } | null;
  disks: BranchDisk[];
  nameTakenBy(name: string): string | null;
}): ShareEnvironment & { disks: BranchDisk[] } {
  return {
    arrayExists: facts.settings !== null || facts.disks.length > 0,
    migrationPending: facts.settings?.migrationPending === true,
    hasCache: hasCacheDisk(facts.disks),
    disks: facts.disks,
    nameTakenBy: (name) => facts.nameTakenBy(name),
  };
}

/** The snapshot's rows as stored: groups by id, memberships as their own rows. */
export interface AccessSnapshotRows extends Omit<AccessSnapshot, 'groups'> {
  groupIds: readonly string[];
  members: ReadonlyArray<{ groupId: string; userId: string }>;
}

/** The access snapshot: each group with its members' user ids (none for a group without members). */
export function accessSnapshotOf(rows: AccessSnapshotRows): AccessSnapshot {
  const byGroup = new Map<string, string[]>();
  for (const m of rows.members) {
    const list = byGroup.get(m.groupId);
    if (list) list.push(m.userId);
    else byGroup.set(m.groupId, [m.userId]);
  }
  return {
    shares: rows.shares,
    users: rows.users,
    groups: rows.groupIds.map((id) => ({ id, memberUserIds: byGroup.get(id) ?? [] })),
    userGrants: rows.userGrants,
    groupGrants: rows.groupGrants,
  };
}
