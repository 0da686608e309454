/**
 * The database side of shares and share access: the `PermissionStore` port of @appliance/shares
 * over drizzle, the access snapshot the Samba renderer reads, and the share rows.
 */
import type {
  AccessLevel,
  AccessSnapshot,
  BranchDisk,
  PermissionStore,
  ShareDefinition,
  ShareEnvironment,
  ShareStore,
} from '@appliance/shares';
import { accessSnapshotOf, shareEnvironmentOf } from '@appliance/shares';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { preparedPerConnection } from '../../db/prepared.ts';
import {
  arrayDisks,
  arraySettings,
  shareGroupPermissions,
  shareUserPermissions,
  shares,
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

/** The shares' names (the backups' plan facts, the apps' share choices). */
export const shareNames = (db: Db): string[] =>
  db
    .select({ name: shares.name })
    .from(shares)
    .all()
    .map((r) => r.name);

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
  return shareEnvironmentOf({
    settings: settings ? { migrationPending: settings.migrationPending === 1 } : null,
    disks: branchDisks(db),
    nameTakenBy: (name) =>
      db.select({ name: shares.name }).from(shares).where(sql`lower(${shares.name}) = lower(${name})`).get()
        ?.name ?? null,
  });
}

/** Deletes a share's grants and its row (the FKs cascade too; the code is explicit, 06 §1). */
export function deleteShareRows(db: Db, name: string): void {
  db.delete(shareUserPermissions).where(eq(shareUserPermissions.shareName, name)).run();
  db.delete(shareGroupPermissions).where(eq(shareGroupPermissions.shareName, name)).run();
  db.delete(shares).where(eq(shares.name, name)).run();
}

/** The `ShareStore` port of @appliance/shares over one handle (the live one, or a write job's). */
export function shareStore(db: Db): ShareStore {
  return {
    find: (name) => findShare(db, name),
    list: () => listShares(db),
    environment: () => shareEnvironment(db),
    insert: (share) => db.insert(shares).values(shareToRow(share)).run(),
    update: (share) => db.update(shares).set(shareToRow(share)).where(eq(shares.name, share.name)).run(),
    delete: (name) => deleteShareRows(db, name),
    get permissions() {
      return permissionStore(db);
    },
    snapshot: () => loadAccessSnapshot(db),
  };
}

/**
 * Prepared statements of the permission store, built once per database handle. The share-side PUT
 * is the hot path of 06 §8 (about a dozen statements per request), so these are plain SQLite
 * statements on the driver: drizzle's per-call placeholder filling and row mapping cost more than
 * running these point queries. The column names are the schema's (db/schema.ts).
 *
 * The names beside the grants are correlated subqueries, not joins: for a join SQLite builds a Bloom
 * filter over the whole users table on every run (≈10 µs with 20 users, growing with the table),
 * while the subquery is one primary-key lookup per grant (≈1 µs). The foreign keys guarantee the
 * row exists, so the results are the same.
 */
const statements = preparedPerConnection((db) => {
  const c = db.$client;
  return {
    share: c.prepare<[string], 1>('select 1 from shares where name = ?').pluck(),
    user: c.prepare<[string], string>('select username from users where id = ?').pluck(),
    group: c.prepare<[string], 1>('select 1 from user_groups where id = ?').pluck(),
    deleteShareUsers: c.prepare<[string]>('delete from share_user_permissions where share_name = ?'),
    deleteShareGroups: c.prepare<[string]>('delete from share_group_permissions where share_name = ?'),
    deleteUserRows: c.prepare<[string]>('delete from share_user_permissions where user_id = ?'),
    insertUser: c.prepare<[string, string, string]>(
      'insert into share_user_permissions (share_name, user_id, access) values (?, ?, ?)',
    ),
    insertGroup: c.prepare<[string, string, string]>(
      'insert into share_group_permissions (share_name, group_id, access) values (?, ?, ?)',
    ),
    shareUsers: c.prepare<[string], { userId: string; username: string; access: AccessLevel }>(
      'select p.user_id as userId, (select username from users where id = p.user_id) as username, p.access as access from share_user_permissions p where p.share_name = ?',
    ),
    shareGroups: c.prepare<[string], { groupId: string; name: string; access: AccessLevel }>(
      'select p.group_id as groupId, (select name from user_groups where id = p.group_id) as name, p.access as access from share_group_permissions p where p.share_name = ?',
    ),
    userRows: c.prepare<[string], { shareName: string; access: AccessLevel }>(
      'select share_name as shareName, access from share_user_permissions where user_id = ?',
    ),
  };
});

export function permissionStore(db: Db): PermissionStore {
  const s = statements(db);
  const existing = (ids: readonly string[], found: (id: string) => boolean): Set<string> =>
    new Set([...new Set(ids)].filter(found));
  return {
    shareExists: (name) => s.share.get(name) !== undefined,
    username: (id) => s.user.get(id) ?? null,
    existingUserIds: (ids) => existing(ids, (id) => s.user.get(id) !== undefined),
    existingGroupIds: (ids) => existing(ids, (id) => s.group.get(id) !== undefined),
    existingShareNames: (names) => existing(names, (name) => s.share.get(name) !== undefined),
    replaceShareRows(share, userGrants, groupGrants) {
      s.deleteShareUsers.run(share);
      s.deleteShareGroups.run(share);
      for (const g of userGrants) s.insertUser.run(share, g.userId, g.access);
      for (const g of groupGrants) s.insertGroup.run(share, g.groupId, g.access);
    },
    replaceUserRows(userId, grants) {
      s.deleteUserRows.run(userId);
      for (const g of grants) s.insertUser.run(g.shareName, userId, g.access);
    },
    readShareRows: (share) => ({ users: s.shareUsers.all(share), groups: s.shareGroups.all(share) }),
    readUserRows: (userId) => s.userRows.all(userId),
  };
}

/** Plain SQLite statements (see `statements` above): the snapshot is read once per regeneration. */
const snapshotStatements = preparedPerConnection((db) => {
  const c = db.$client;
  return {
    members: c.prepare<[], { groupId: string; userId: string }>(
      'select group_id as groupId, user_id as userId from user_group_members',
    ),
    shares: c.prepare<[], { name: string; enabled: number; browseable: number }>(
      'select name, smb_enabled as enabled, smb_browseable as browseable from shares',
    ),
    users: c.prepare<[], { id: string; username: string }>('select id, username from users'),
    groups: c.prepare<[], string>('select id from user_groups').pluck(),
    userGrants: c.prepare<[], { shareName: string; userId: string; access: AccessLevel }>(
      'select share_name as shareName, user_id as userId, access from share_user_permissions',
    ),
    groupGrants: c.prepare<[], { shareName: string; groupId: string; access: AccessLevel }>(
      'select share_name as shareName, group_id as groupId, access from share_group_permissions',
    ),
  };
});

/**
 * Everything the Samba rendering reads. One synchronous pass on the server's one connection: no
 * write job can commit in between, so the snapshot is consistent. Prepared once per handle: it runs
 * once per coalesced regeneration, on the hot path of 06 §8.
 */
export function loadAccessSnapshot(db: Db): AccessSnapshot {
  const q = snapshotStatements(db);
  return accessSnapshotOf({
    shares: q.shares
      .all()
      .map((s) => ({ name: s.name, smb: { enabled: s.enabled === 1, browseable: s.browseable === 1 } })),
    users: q.users.all(),
    groupIds: q.groups.all(),
    members: q.members.all(),
    userGrants: q.userGrants.all(),
    groupGrants: q.groupGrants.all(),
  });
}
