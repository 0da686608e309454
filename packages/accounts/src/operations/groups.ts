import type { Clock } from '@appliance/common';
import { refuse } from '@appliance/common';
import { groupNotFound } from '../core/refusals.ts';
import type { AuditEntry } from '../ports.ts';

/** A user group as the API answers it: its members' ids sorted. */
export interface GroupView {
  id: string;
  name: string;
  memberUserIds: string[];
}

export interface GroupRow {
  id: string;
  name: string;
  createdAt: string;
}

/** Reads of the groups tables (synchronous). */
export interface GroupsView {
  /** Every group, by lowercase name. */
  list(): GroupRow[];
  /** Every membership. */
  memberships(): Array<{ groupId: string; userId: string }>;
  find(id: string): GroupRow | undefined;
  members(groupId: string): string[];
}

/** One write transaction of the group operations; the audit row joins it. */
export interface GroupsTx extends GroupsView {
  /** Whether a group has this name, compared ignoring case. */
  nameTaken(name: string): boolean;
  insert(row: GroupRow): void;
  /** Deletes the group with its memberships and share grants. */
  delete(id: string): void;
  /** Which of these user ids exist. */
  knownUsers(ids: string[]): Set<string>;
  /** Replaces the group's memberships with these users. */
  setMembers(groupId: string, userIds: string[]): void;
  audit(entry: AuditEntry): void;
}

export interface GroupsStore extends GroupsView {
  write<T>(fn: (tx: GroupsTx) => T): Promise<T>;
}

export interface GroupsDeps {
  store: GroupsStore;
  clock: Clock;
  random: { uuid(): string };
  /** Rewrites smb.conf (a group's members are its shares' valid users). */
  regenerateSamba(): Promise<void>;
}

function loadGroup(view: GroupsView, id: string): GroupView | undefined {
  const g = view.find(id);
  if (!g) return undefined;
  return { id: g.id, name: g.name, memberUserIds: view.members(id).sort() };
}

export function listGroups(store: GroupsView): GroupView[] {
  const members = store.memberships();
  return store.list().map((g) => ({
    id: g.id,
    name: g.name,
    memberUserIds: members
      .filter((m) => m.groupId === g.id)
      .map((m) => m.userId)
      .sort(),
  }));
}

export function getGroup(store: GroupsView, id: string): GroupView {
  const g = loadGroup(store, id);
  if (!g) throw groupNotFound(id);
  return g;
}

/** Creates a group (names unique ignoring case: `group_exists`). */
export async function createGroup(deps: GroupsDeps, name: string): Promise<GroupView> {
  return deps.store.write((tx) => {
    if (tx.nameTaken(name))
      throw refuse(
        'group_exists',
        `A group named ${name} already exists (names are compared ignoring case).`,
      );
    const id = deps.random.uuid();
    tx.insert({ id, name, createdAt: deps.clock.now().toISOString() });
    tx.audit({ operation: 'user_group.create', target: name });
    return { id, name, memberUserIds: [] as string[] };
  });
}

/** Deletes a group with its memberships and share grants, then rewrites smb.conf. */
export async function deleteGroup(deps: GroupsDeps, id: string): Promise<void> {
  await deps.store.write((tx) => {
    const g = tx.find(id);
    if (!g) throw groupNotFound(id);
    tx.delete(id);
    tx.audit({ operation: 'user_group.delete', target: g.name });
  });
  await deps.regenerateSamba();
}

/** Replaces a group's members (every id must name a user: `user_not_found`), then rewrites smb.conf. */
export async function setGroupMembers(deps: GroupsDeps, id: string, userIds: string[]): Promise<GroupView> {
  const group = await deps.store.write((tx) => {
    const g = tx.find(id);
    if (!g) throw groupNotFound(id);
    if (userIds.length > 0) {
      const known = tx.knownUsers(userIds);
      const unknown = userIds.find((u) => !known.has(u));
      if (unknown) throw refuse('user_not_found', `No user has the id ${unknown}.`, { userId: unknown });
    }
    tx.setMembers(id, userIds);
    tx.audit({
      operation: 'user_group.members_update',
      target: g.name,
      details: { members: userIds.length },
    });
    return loadGroup(tx, id)!;
  });
  await deps.regenerateSamba();
  return group;
}
