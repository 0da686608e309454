/** The facts of the share operations built from plain rows: the create/update environment, the snapshot. */
import { describe, expect, it } from 'vitest';
import { accessSnapshotOf, shareEnvironmentOf } from './facts.ts';

const disk = (role: 'data' | 'cache' | 'parity') => ({
  role,
  mountpoint: `/mnt/${role}`,
  removalState: null,
});

describe('shareEnvironmentOf', () => {
  it('no settings row and no slot: no array, no cache, no migration', () => {
    const env = shareEnvironmentOf({ settings: null, disks: [], nameTakenBy: () => null });
    expect([env.arrayExists, env.hasCache, env.migrationPending]).toEqual([false, false, false]);
  });

  it('a settings row alone is an array; a pending migration is reported', () => {
    const env = shareEnvironmentOf({
      settings: { migrationPending: true },
      disks: [],
      nameTakenBy: () => null,
    });
    expect([env.arrayExists, env.migrationPending]).toEqual([true, true]);
  });

  it('slots alone are an array; a cache slot is a cache; the name lookup is passed through', () => {
    const env = shareEnvironmentOf({
      settings: null,
      disks: [disk('data'), disk('cache')],
      nameTakenBy: (n) => (n.toLowerCase() === 'media' ? 'Media' : null),
    });
    expect([env.arrayExists, env.hasCache, env.nameTakenBy('MEDIA'), env.nameTakenBy('x')]).toEqual([
      true,
      true,
      'Media',
      null,
    ]);
    expect(
      shareEnvironmentOf({ settings: null, disks: [disk('data')], nameTakenBy: () => null }).hasCache,
    ).toBe(false);
  });
});

describe('accessSnapshotOf', () => {
  it('each group with its members, a group without members with none', () => {
    const snap = accessSnapshotOf({
      shares: [{ name: 'media', smb: { enabled: true, browseable: false } }],
      users: [
        { id: 'u1', username: 'alice' },
        { id: 'u2', username: 'bob' },
      ],
      groupIds: ['g1', 'g2'],
      members: [
        { groupId: 'g1', userId: 'u1' },
        { groupId: 'g1', userId: 'u2' },
        { groupId: 'gone', userId: 'u1' },
      ],
      userGrants: [{ shareName: 'media', userId: 'u1', access: 'read-write' }],
      groupGrants: [],
    });
    expect(snap.groups).toEqual([
      { id: 'g1', memberUserIds: ['u1', 'u2'] },
      { id: 'g2', memberUserIds: [] },
    ]);
    expect(snap.shares).toEqual([{ name: 'media', smb: { enabled: true, browseable: false } }]);
    expect(snap.userGrants).toHaveLength(1);
  });
});
