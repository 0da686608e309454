import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { accountsFixture, codeOf } from '../test-support/index.ts';
import {
  createGroup,
  deleteGroup,
  getGroup,
  type GroupsDeps,
  listGroups,
  setGroupMembers,
} from './groups.ts';

function setup() {
  const f = accountsFixture();
  const calls: string[] = [];
  const deps: GroupsDeps = {
    store: f.store.groups(),
    clock: f.clock,
    random: f.random,
    regenerateSamba: async () => void calls.push('regenerate'),
  };
  return { ...f, deps, calls };
}
describe('user-group operations', () => {
  it('creates groups with names unique ignoring case, listed by lowercase name', async () => {
    const s = setup();
    expect(await createGroup(s.deps, 'family')).toEqual({ id: 'id-1', name: 'family', memberUserIds: [] });
    await createGroup(s.deps, 'Admins');
    expect(await codeOf(createGroup(s.deps, 'FAMILY'))).toBe('group_exists');
    expect(listGroups(s.deps.store).map((g) => g.name)).toEqual(['Admins', 'family']);
    expect(s.calls).toEqual([]);
  });

  it('replaces members (sorted; every id must be a user), then rewrites smb.conf', async () => {
    const s = setup();
    const a = await s.addUser('a', 'viewer');
    const b = await s.addUser('b', 'share-only');
    const g = await createGroup(s.deps, 'family');
    expect(await setGroupMembers(s.deps, g.id, [b.id, a.id])).toEqual({
      ...g,
      memberUserIds: [a.id, b.id].sort(),
    });
    expect(await codeOf(setGroupMembers(s.deps, g.id, [a.id, 'nobody']))).toBe('user_not_found');
    expect(getGroup(s.deps.store, g.id).memberUserIds).toEqual([a.id, b.id].sort());
    expect(await setGroupMembers(s.deps, g.id, [])).toMatchObject({ memberUserIds: [] });
    expect(s.calls).toEqual(['regenerate', 'regenerate']);
    expect(s.store.state.audit.at(-1)).toEqual({
      operation: 'user_group.members_update',
      target: 'family',
      details: { members: 0 },
    });
  });

  it('deletes a group with its memberships and share grants', async () => {
    const s = setup();
    const a = await s.addUser('a', 'viewer');
    const g = await createGroup(s.deps, 'family');
    await setGroupMembers(s.deps, g.id, [a.id]);
    s.store.state.groupGrants.push({ share: 'media', groupId: g.id });
    await deleteGroup(s.deps, g.id);
    expect(s.store.state).toMatchObject({ groups: [], members: [], groupGrants: [] });
    expect(await codeOf(deleteGroup(s.deps, g.id))).toBe('group_not_found');
    expect(() => getGroup(s.deps.store, g.id)).toThrow(Refusal);
  });
});
