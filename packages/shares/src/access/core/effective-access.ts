/**
 * Effective access (06 §4): what Samba enforces for each user on each share.
 * 1. the user's own row, always (even `none` over a group's `read-write`);
 * 2. else the widest level among the rows of the groups the user belongs to;
 * 3. else `none`.
 */
import { ACCESS_RANK, type AccessLevel, byLowerNameThenId, type SmbSettings } from '../model.ts';

/** Everything the renderer and the access view read, collected in one read transaction. */
export interface AccessSnapshot {
  shares: ReadonlyArray<{ name: string; smb: SmbSettings }>;
  users: ReadonlyArray<{ id: string; username: string }>;
  groups: ReadonlyArray<{ id: string; memberUserIds: readonly string[] }>;
  userGrants: ReadonlyArray<{ shareName: string; userId: string; access: AccessLevel }>;
  groupGrants: ReadonlyArray<{ shareName: string; groupId: string; access: AccessLevel }>;
}

export type AccessSource = 'user' | 'group' | 'none';

export interface EffectiveUserAccess {
  userId: string;
  username: string;
  access: AccessLevel;
  source: AccessSource;
}

/** `GET /shares/:name/access` (06 §4). */
export interface ShareAccess {
  share: string;
  available: boolean;
  users: EffectiveUserAccess[];
}

/** Resolves one user's level from their own row and their groups' rows. */
export function resolveAccess(
  own: AccessLevel | undefined,
  groupLevels: Iterable<AccessLevel>,
): { access: AccessLevel; source: AccessSource } {
  if (own !== undefined) return { access: own, source: 'user' };
  let widest: AccessLevel | undefined;
  for (const level of groupLevels) {
    if (widest === undefined || ACCESS_RANK[level] > ACCESS_RANK[widest]) widest = level;
  }
  return widest === undefined ? { access: 'none', source: 'none' } : { access: widest, source: 'group' };
}

/** Precomputed lookups over a snapshot, so resolving every share costs one pass over the rows. */
export interface AccessIndex {
  shareAccess(shareName: string): ShareAccess;
}

export function indexAccess(snapshot: AccessSnapshot): AccessIndex {
  const ownRows = new Map<string, Map<string, AccessLevel>>();
  for (const g of snapshot.userGrants) mapOf(ownRows, g.shareName).set(g.userId, g.access);
  const groupRows = new Map<string, Map<string, AccessLevel>>();
  for (const g of snapshot.groupGrants) mapOf(groupRows, g.shareName).set(g.groupId, g.access);
  const groupsOfUser = new Map<string, string[]>();
  for (const group of snapshot.groups) {
    for (const userId of group.memberUserIds) {
      const list = groupsOfUser.get(userId) ?? [];
      list.push(group.id);
      groupsOfUser.set(userId, list);
    }
  }
  const users = [...snapshot.users].sort(
    byLowerNameThenId(
      (u) => u.username,
      (u) => u.id,
    ),
  );
  return {
    shareAccess(shareName) {
      const own = ownRows.get(shareName);
      const byGroup = groupRows.get(shareName);
      const entries = users.map((u): EffectiveUserAccess => {
        const levels: AccessLevel[] = [];
        for (const groupId of groupsOfUser.get(u.id) ?? []) {
          const level = byGroup?.get(groupId);
          if (level !== undefined) levels.push(level);
        }
        return { userId: u.id, username: u.username, ...resolveAccess(own?.get(u.id), levels) };
      });
      return { share: shareName, available: entries.some((e) => e.access !== 'none'), users: entries };
    },
  };
}

export const shareAccess = (snapshot: AccessSnapshot, shareName: string): ShareAccess =>
  indexAccess(snapshot).shareAccess(shareName);

function mapOf<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}
