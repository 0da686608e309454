import { Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import type { AccessLevel } from '../model.ts';
import {
  type GroupGrant,
  normalizeSharePermissions,
  normalizeUserPermissions,
  type PermissionStore,
  readSharePermissions,
  readUserPermissions,
  replaceSharePermissions,
  replaceUserPermissions,
  type ShareGrant,
  type UserGrant,
} from './permissions.ts';

const ALICE = '0b7c7f9e-0000-4000-8000-00000000000a';
const BOB = '0b7c7f9e-0000-4000-8000-00000000000b';
const CAROL = '0b7c7f9e-0000-4000-8000-00000000000c';
const FAMILY = '5e21aaaa-0000-4000-8000-000000000001';
const ADULTS = '5e21aaaa-0000-4000-8000-000000000002';

/** An in-memory store port (a fake is fine for the core's unit tests). */
function memoryStore() {
  const users = new Map([
    [ALICE, 'alice'],
    [BOB, 'Bob'],
    [CAROL, 'carol'],
  ]);
  const groups = new Map([
    [FAMILY, 'family'],
    [ADULTS, 'Adults'],
  ]);
  const shares = new Set(['media', 'backups', 'Photos']);
  let userRows: Array<{ shareName: string; userId: string; access: AccessLevel }> = [];
  let groupRows: Array<{ shareName: string; groupId: string; access: AccessLevel }> = [];
  const store: PermissionStore = {
    shareExists: (n) => shares.has(n),
    username: (id) => users.get(id) ?? null,
    existingUserIds: (ids) => new Set(ids.filter((i) => users.has(i))),
    existingGroupIds: (ids) => new Set(ids.filter((i) => groups.has(i))),
    existingShareNames: (names) => new Set(names.filter((n) => shares.has(n))),
    replaceShareRows(shareName, u: readonly UserGrant[], g: readonly GroupGrant[]) {
      userRows = userRows
        .filter((r) => r.shareName !== shareName)
        .concat(u.map((x) => ({ shareName, ...x })));
      groupRows = groupRows
        .filter((r) => r.shareName !== shareName)
        .concat(g.map((x) => ({ shareName, ...x })));
    },
    replaceUserRows(userId, grants: readonly ShareGrant[]) {
      userRows = userRows.filter((r) => r.userId !== userId).concat(grants.map((x) => ({ userId, ...x })));
    },
    readShareRows: (shareName) => ({
      users: userRows
        .filter((r) => r.shareName === shareName)
        .map((r) => ({ userId: r.userId, username: users.get(r.userId)!, access: r.access })),
      groups: groupRows
        .filter((r) => r.shareName === shareName)
        .map((r) => ({ groupId: r.groupId, name: groups.get(r.groupId)!, access: r.access })),
    }),
    readUserRows: (userId) =>
      userRows.filter((r) => r.userId === userId).map((r) => ({ shareName: r.shareName, access: r.access })),
  };
  return { store, rows: () => ({ userRows: [...userRows], groupRows: [...groupRows] }) };
}

const thrown = (fn: () => unknown): Refusal => {
  try {
    fn();
  } catch (err) {
    if (err instanceof Refusal) return err;
    throw err;
  }
  throw new Error('expected a Refusal');
};

describe('share-side full replace (06 §2)', () => {
  it('replaces the rows and reads them back sorted by lowercase name', () => {
    const { store } = memoryStore();
    const result = replaceSharePermissions(
      store,
      'media',
      normalizeSharePermissions({
        users: [
          { userId: CAROL, access: 'none' },
          { userId: ALICE.toUpperCase(), access: 'read-write' },
          { userId: BOB, access: 'read-only' },
        ],
        groups: [
          { groupId: FAMILY, access: 'read-only' },
          { groupId: ADULTS, access: 'read-write' },
        ],
      }),
    );
    expect(result.users.map((u) => [u.username, u.access])).toEqual([
      ['alice', 'read-write'],
      ['Bob', 'read-only'],
      ['carol', 'none'],
    ]);
    expect(result.users[0]!.userId).toBe(ALICE);
    expect(result.groups.map((g) => g.name)).toEqual(['Adults', 'family']);
  });

  it('removes every principal not listed (scenario 6)', () => {
    const { store } = memoryStore();
    replaceSharePermissions(store, 'media', {
      users: [
        { userId: ALICE, access: 'read-write' },
        { userId: BOB, access: 'read-only' },
      ],
      groups: [{ groupId: FAMILY, access: 'read-only' }],
    });
    const after = replaceSharePermissions(store, 'media', {
      users: [{ userId: BOB, access: 'none' }],
      groups: [],
    });
    expect(after).toEqual({ users: [{ userId: BOB, username: 'Bob', access: 'none' }], groups: [] });
  });

  it('does not touch the rows of other shares', () => {
    const { store } = memoryStore();
    replaceSharePermissions(store, 'backups', {
      users: [{ userId: ALICE, access: 'read-only' }],
      groups: [],
    });
    replaceSharePermissions(store, 'media', { users: [], groups: [] });
    expect(readSharePermissions(store, 'backups').users).toHaveLength(1);
  });

  it('refuses the first duplicate in request order, whatever the levels (check 8)', () => {
    const err = thrown(() =>
      normalizeSharePermissions({
        users: [
          { userId: ALICE, access: 'read-only' },
          { userId: BOB, access: 'read-only' },
          { userId: ALICE.toUpperCase(), access: 'read-write' },
          { userId: BOB, access: 'none' },
        ],
        groups: [],
      }),
    );
    expect([err.code, err.details]).toEqual(['duplicate_grant', { kind: 'user', id: ALICE }]);
    const g = thrown(() =>
      normalizeSharePermissions({
        users: [],
        groups: [
          { groupId: FAMILY, access: 'none' },
          { groupId: FAMILY.toUpperCase(), access: 'none' },
        ],
      }),
    );
    expect(g.details).toEqual({ kind: 'group', id: FAMILY });
  });

  it('does not treat the same id as a user and as a group as a duplicate', () => {
    const n = normalizeSharePermissions({
      users: [{ userId: ALICE, access: 'none' }],
      groups: [{ groupId: ALICE, access: 'none' }],
    });
    expect(n.users).toHaveLength(1);
    expect(n.groups).toHaveLength(1);
  });

  it('checks share, then users, then groups, and writes nothing when one fails (checks 9–10)', () => {
    const { store, rows } = memoryStore();
    replaceSharePermissions(store, 'media', { users: [{ userId: ALICE, access: 'read-write' }], groups: [] });
    const before = rows();
    const unknown = '99999999-0000-4000-8000-000000000000';
    const a = thrown(() =>
      replaceSharePermissions(store, 'nope', { users: [{ userId: unknown, access: 'none' }], groups: [] }),
    );
    expect(a.code).toBe('share_not_found');
    const b = thrown(() =>
      replaceSharePermissions(store, 'media', {
        users: [
          { userId: BOB, access: 'none' },
          { userId: unknown, access: 'none' },
        ],
        groups: [{ groupId: unknown, access: 'none' }],
      }),
    );
    expect([b.code, b.details]).toEqual(['user_not_found', { userId: unknown }]);
    const c = thrown(() =>
      replaceSharePermissions(store, 'media', { users: [], groups: [{ groupId: unknown, access: 'none' }] }),
    );
    expect([c.code, c.details]).toEqual(['group_not_found', { groupId: unknown }]);
    expect(rows()).toEqual(before);
  });

  it('looks the share up exactly (case-sensitive)', () => {
    const { store } = memoryStore();
    expect(thrown(() => readSharePermissions(store, 'MEDIA')).code).toBe('share_not_found');
    expect(readSharePermissions(store, 'Photos')).toEqual({ users: [], groups: [] });
  });
});

describe('user-side editor (06 §3)', () => {
  it('edits the same rows as the share side (scenarios 1–2)', () => {
    const { store } = memoryStore();
    replaceSharePermissions(store, 'media', { users: [{ userId: ALICE, access: 'read-write' }], groups: [] });
    expect(readUserPermissions(store, ALICE).permissions).toEqual([
      { shareName: 'media', access: 'read-write' },
    ]);
    const r = replaceUserPermissions(
      store,
      ALICE.toUpperCase(),
      normalizeUserPermissions({
        permissions: [
          { shareName: 'media', access: 'read-only' },
          { shareName: 'backups', access: 'none' },
          { shareName: 'Photos', access: 'read-only' },
        ],
      }),
    );
    expect(r).toEqual({
      userId: ALICE,
      username: 'alice',
      permissions: [
        { shareName: 'Photos', access: 'read-only' },
        { shareName: 'backups', access: 'none' },
        { shareName: 'media', access: 'read-only' },
      ],
    });
    expect(readSharePermissions(store, 'media').users).toEqual([
      { userId: ALICE, username: 'alice', access: 'read-only' },
    ]);
  });

  it('leaves group rows and other users alone', () => {
    const { store } = memoryStore();
    replaceSharePermissions(store, 'media', {
      users: [
        { userId: ALICE, access: 'read-write' },
        { userId: BOB, access: 'read-only' },
      ],
      groups: [{ groupId: FAMILY, access: 'read-only' }],
    });
    replaceUserPermissions(store, ALICE, { permissions: [] });
    const after = readSharePermissions(store, 'media');
    expect(after.users.map((u) => u.username)).toEqual(['Bob']);
    expect(after.groups).toHaveLength(1);
  });

  it('refuses a duplicate share, an unknown user and an unknown share, writing nothing', () => {
    const { store, rows } = memoryStore();
    const dup = thrown(() =>
      normalizeUserPermissions({
        permissions: [
          { shareName: 'media', access: 'none' },
          { shareName: 'media', access: 'read-only' },
        ],
      }),
    );
    expect([dup.code, dup.details]).toEqual(['duplicate_grant', { kind: 'share', id: 'media' }]);
    const u = thrown(() =>
      replaceUserPermissions(store, '99999999-0000-4000-8000-000000000000', { permissions: [] }),
    );
    expect(u.code).toBe('user_not_found');
    const s = thrown(() =>
      replaceUserPermissions(store, ALICE, {
        permissions: [
          { shareName: 'media', access: 'none' },
          { shareName: 'MEDIA', access: 'none' },
        ],
      }),
    );
    expect([s.code, s.details]).toEqual(['share_not_found', { shareName: 'MEDIA' }]);
    expect(rows()).toEqual({ userRows: [], groupRows: [] });
  });
});
