import { describe, expect, it } from 'vitest';
import { type AccessSnapshot, resolveAccess, shareAccess } from './effective-access.ts';

describe('resolveAccess (06 §4)', () => {
  it('applies the own row always, even none over a group read-write', () => {
    expect(resolveAccess('none', ['read-write'])).toEqual({ access: 'none', source: 'user' });
    expect(resolveAccess('read-only', ['read-write'])).toEqual({ access: 'read-only', source: 'user' });
  });
  it('takes the widest group level without an own row', () => {
    expect(resolveAccess(undefined, ['none', 'read-write', 'read-only'])).toEqual({
      access: 'read-write',
      source: 'group',
    });
    expect(resolveAccess(undefined, ['none'])).toEqual({ access: 'none', source: 'group' });
  });
  it('gives no access without any row', () => {
    expect(resolveAccess(undefined, [])).toEqual({ access: 'none', source: 'none' });
  });
});

const ids = { alice: 'a', bob: 'b', carol: 'c', dave: 'd' };

const scenario7: AccessSnapshot = {
  shares: [
    { name: 'media', smb: { enabled: true, browseable: true } },
    { name: 'backups', smb: { enabled: true, browseable: true } },
  ],
  users: [
    { id: ids.dave, username: 'Dave' },
    { id: ids.carol, username: 'carol' },
    { id: ids.bob, username: 'bob' },
    { id: ids.alice, username: 'alice' },
  ],
  groups: [{ id: 'family', memberUserIds: [ids.bob, ids.carol] }],
  userGrants: [
    { shareName: 'media', userId: ids.alice, access: 'read-write' },
    { shareName: 'media', userId: ids.carol, access: 'none' },
  ],
  groupGrants: [{ shareName: 'media', groupId: 'family', access: 'read-only' }],
};

describe('shareAccess', () => {
  it('lists every user sorted by lowercase name with the source of its level (scenario 7)', () => {
    expect(shareAccess(scenario7, 'media')).toEqual({
      share: 'media',
      available: true,
      users: [
        { userId: 'a', username: 'alice', access: 'read-write', source: 'user' },
        { userId: 'b', username: 'bob', access: 'read-only', source: 'group' },
        { userId: 'c', username: 'carol', access: 'none', source: 'user' },
        { userId: 'd', username: 'Dave', access: 'none', source: 'none' },
      ],
    });
  });
  it('reports a share without rows as unavailable', () => {
    const a = shareAccess(scenario7, 'backups');
    expect(a.available).toBe(false);
    expect(a.users.every((u) => u.source === 'none')).toBe(true);
  });
  it('is unavailable when every row is none', () => {
    const s: AccessSnapshot = {
      ...scenario7,
      userGrants: [{ shareName: 'media', userId: ids.alice, access: 'none' }],
      groupGrants: [{ shareName: 'media', groupId: 'family', access: 'none' }],
    };
    expect(shareAccess(s, 'media').available).toBe(false);
  });
});
