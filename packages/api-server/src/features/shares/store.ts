/**
 * The database side of shares and share access: the `PermissionStore` port of @appliance/shares
 * over drizzle, the access snapshot the Samba renderer reads, and the share rows.
 */
import type {
  AccessSnapshot,
  BranchDisk,
  PermissionStore,
  ShareDefinition,
  ShareEnvironment,
} from '@appliance/shares';
import { hasCacheDisk } from '@appliance/shares';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import {
  arrayDisks,
  arraySettings,
  shareGroupPermissions,
  shareUserPermissions,
  shares,
  userGroupMembers,
  userGroups,
  users,
} from '../../db/schema.ts';

type ShareRow = typeof shares.$inferSelect;

export const rowToShare = (r: ShareRow): ShareDefinition => ({
  name: r.name,
  cacheMode: r.cacheMode,
  createPolicy: r.createPolicy,
  smb: { enabled: r.smbEnabled === 1, browseable: r.smbBrowseable === 1 },
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const shareToRow = (s: ShareDefinition): ShareRow => ({
  name: s.name,
  cacheMode: s.cacheMode,
  createPolicy: s.createPolicy,
  smbEnabled: s.smb.enabled ? 1 : 0,
  smbBrowseable: s.smb.browseable ? 1 : 0,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

export function findShare(db: Db, name: string): ShareDefinition | undefined {
  const row = db.select().from(shares).where(eq(shares.name, name)).get();
  return row ? rowToShare(row) : undefined;
}

export function listShares(db: Db): ShareDefinition[] {
  return db.select().from(shares).orderBy(sql`lower(${shares.name})`, shares.name).all().map(rowToShare);
}

/** Array slots as branch planning needs them, data disks by role index. */
export function branchDisks(db: Db): BranchDisk[] {
  return db
    .select({
      role: arrayDisks.role,
      mountpoint: arrayDisks.mountpoint,
      removalState: arrayDisks.removalState,
    })
    .from(arrayDisks)
    .orderBy(arrayDisks.role, arrayDisks.roleIndex)
    .all();
}

/** What the create/update checks need (08 §6). */
export function shareEnvironment(db: Db): ShareEnvironment & { disks: BranchDisk[] } {
  const settings = db.select().from(arraySettings).where(eq(arraySettings.id, 1)).get();
  const disks = branchDisks(db);
  return {
    arrayExists: settings !== undefined || disks.length > 0,
    migrationPending: settings?.migrationPending === 1,
    hasCache: hasCacheDisk(disks),
    disks,
    nameTakenBy: (name) =>
      db
        .select({ name: shares.name })
        .from(shares)
        .where(sql`lower(${shares.name}) = ${name.toLowerCase()}`)
        .get()?.name ?? null,
  };
}

/** Deletes a share's grants and its row (the FKs cascade too; the code is explicit, 06 §1). */
export function deleteShareRows(db: Db, name: string): void {
  db.delete(shareUserPermissions).where(eq(shareUserPermissions.shareName, name)).run();
  db.delete(shareGroupPermissions).where(eq(shareGroupPermissions.shareName, name)).run();
  db.delete(shares).where(eq(shares.name, name)).run();
}

/**
 * Prepared statements of the permission store, built once per database handle: the share-side PUT is
 * the hot path of 06 §8, and rebuilding and re-preparing each query per request costs more than
 * running it.
 */
function statements(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  return {
    share: db
      .select({ n: shares.name })
      .from(shares)
      .where(eq(shares.name, p('name')))
      .prepare(),
    user: db
      .select({ username: users.username })
      .from(users)
      .where(eq(users.id, p('id')))
      .prepare(),
    group: db
      .select({ id: userGroups.id })
      .from(userGroups)
      .where(eq(userGroups.id, p('id')))
      .prepare(),
    deleteShareUsers: db
      .delete(shareUserPermissions)
      .where(eq(shareUserPermissions.shareName, p('share')))
      .prepare(),
    deleteShareGroups: db
      .delete(shareGroupPermissions)
      .where(eq(shareGroupPermissions.shareName, p('share')))
      .prepare(),
    deleteUserRows: db
      .delete(shareUserPermissions)
      .where(eq(shareUserPermissions.userId, p('userId')))
      .prepare(),
    insertUser: db
      .insert(shareUserPermissions)
      .values({ shareName: p('share'), userId: p('userId'), access: p('access') })
      .prepare(),
    insertGroup: db
      .insert(shareGroupPermissions)
      .values({ shareName: p('share'), groupId: p('groupId'), access: p('access') })
      .prepare(),
    shareUsers: db
      .select({ userId: users.id, username: users.username, access: shareUserPermissions.access })
      .from(shareUserPermissions)
      .innerJoin(users, eq(users.id, shareUserPermissions.userId))
      .where(eq(shareUserPermissions.shareName, p('share')))
      .prepare(),
    shareGroups: db
      .select({ groupId: userGroups.id, name: userGroups.name, access: shareGroupPermissions.access })
      .from(shareGroupPermissions)
      .innerJoin(userGroups, eq(userGroups.id, shareGroupPermissions.groupId))
      .where(eq(shareGroupPermissions.shareName, p('share')))
      .prepare(),
    userRows: db
      .select({ shareName: shareUserPermissions.shareName, access: shareUserPermissions.access })
      .from(shareUserPermissions)
      .where(eq(shareUserPermissions.userId, p('userId')))
      .prepare(),
  };
}

const prepared = new WeakMap<Db, ReturnType<typeof statements>>();

export function permissionStore(db: Db): PermissionStore {
  let q = prepared.get(db);
  if (!q) {
    q = statements(db);
    prepared.set(db, q);
  }
  const s = q;
  const existing = (ids: readonly string[], found: (id: string) => boolean): Set<string> =>
    new Set([...new Set(ids)].filter(found));
  return {
    shareExists: (name) => s.share.get({ name }) !== undefined,
    username: (id) => s.user.get({ id })?.username ?? null,
    existingUserIds: (ids) => existing(ids, (id) => s.user.get({ id }) !== undefined),
    existingGroupIds: (ids) => existing(ids, (id) => s.group.get({ id }) !== undefined),
    existingShareNames: (names) => existing(names, (name) => s.share.get({ name }) !== undefined),
    replaceShareRows(share, userGrants, groupGrants) {
      s.deleteShareUsers.run({ share });
      s.deleteShareGroups.run({ share });
      for (const g of userGrants) s.insertUser.run({ share, userId: g.userId, access: g.access });
      for (const g of groupGrants) s.insertGroup.run({ share, groupId: g.groupId, access: g.access });
    },
    replaceUserRows(userId, grants) {
      s.deleteUserRows.run({ userId });
      for (const g of grants) s.insertUser.run({ share: g.shareName, userId, access: g.access });
    },
    readShareRows: (share) => ({ users: s.shareUsers.all({ share }), groups: s.shareGroups.all({ share }) }),
    readUserRows: (userId) => s.userRows.all({ userId }),
  };
}

function snapshotStatements(db: Db) {
  return {
    members: db.select().from(userGroupMembers).prepare(),
    shares: db
      .select({ name: shares.name, enabled: shares.smbEnabled, browseable: shares.smbBrowseable })
      .from(shares)
      .prepare(),
    users: db.select({ id: users.id, username: users.username }).from(users).prepare(),
    groups: db.select({ id: userGroups.id }).from(userGroups).prepare(),
    userGrants: db.select().from(shareUserPermissions).prepare(),
    groupGrants: db.select().from(shareGroupPermissions).prepare(),
  };
}

const snapshotPrepared = new WeakMap<Db, ReturnType<typeof snapshotStatements>>();

/**
 * Everything the Samba rendering reads. One synchronous pass on the server's one connection: no
 * write job can commit in between, so the snapshot is consistent. Prepared once per handle: it runs
 * once per coalesced regeneration, on the hot path of 06 §8.
 */
export function loadAccessSnapshot(db: Db): AccessSnapshot {
  let q = snapshotPrepared.get(db);
  if (!q) {
    q = snapshotStatements(db);
    snapshotPrepared.set(db, q);
  }
  const byGroup = new Map<string, string[]>();
  for (const m of q.members.all()) {
    const list = byGroup.get(m.groupId);
    if (list) list.push(m.userId);
    else byGroup.set(m.groupId, [m.userId]);
  }
  return {
    shares: q.shares
      .all()
      .map((s) => ({ name: s.name, smb: { enabled: s.enabled === 1, browseable: s.browseable === 1 } })),
    users: q.users.all(),
    groups: q.groups.all().map((g) => ({ id: g.id, memberUserIds: byGroup.get(g.id) ?? [] })),
    userGrants: q.userGrants.all(),
    groupGrants: q.groupGrants.all(),
  };
}
