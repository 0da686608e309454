/**
 * In-memory implementations of the share operations' ports (issue 33): a share store with users,
 * groups and grants, an audit list, a write that commits a copy (a throw leaves nothing), and a
 * Samba sync that records its regenerations. For the operations' tests and for a daemon's trial.
 */
import type { HostPaths } from '@appliance/common';
import type { BranchDisk } from '../access/branches.ts';
import type { AccessLevel, ShareDefinition } from '../access/model.ts';
import type { ShareAuditEntry, ShareOperationPorts, ShareStore, ShareTx } from '../operations/ports.ts';

export interface MemoryShareState {
  shares: ShareDefinition[];
  users: Array<{ id: string; username: string }>;
  groups: Array<{ id: string; memberUserIds: string[] }>;
  userGrants: Array<{ shareName: string; userId: string; access: AccessLevel }>;
  groupGrants: Array<{ shareName: string; groupId: string; access: AccessLevel }>;
  disks: BranchDisk[];
  migrationPending: boolean;
  audit: Array<ShareAuditEntry & { id: number }>;
}

export const emptyShareState = (disks: BranchDisk[] = []): MemoryShareState => ({
  shares: [],
  users: [],
  groups: [],
  userGrants: [],
  groupGrants: [],
  disks,
  migrationPending: false,
  audit: [],
});

/** A `ShareStore` over `state` (changes land in `state` directly). */
export function memoryShareStore(state: MemoryShareState): ShareStore {
  const exists = (list: readonly string[], has: (x: string) => boolean) => new Set(list.filter(has));
  return {
    find: (name) => state.shares.find((s) => s.name === name),
    list: () => [...state.shares].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase())),
    environment: () => ({
      arrayExists: state.disks.length > 0,
      migrationPending: state.migrationPending,
      hasCache: state.disks.some((d) => d.role === 'cache'),
      disks: state.disks,
      nameTakenBy: (name) =>
        state.shares.find((s) => s.name.toLowerCase() === name.toLowerCase())?.name ?? null,
    }),
    insert: (share) => void state.shares.push(share),
    update: (share) => {
      state.shares = state.shares.map((s) => (s.name === share.name ? share : s));
    },
    delete: (name) => {
      state.shares = state.shares.filter((s) => s.name !== name);
      state.userGrants = state.userGrants.filter((g) => g.shareName !== name);
      state.groupGrants = state.groupGrants.filter((g) => g.shareName !== name);
    },
    permissions: {
      shareExists: (name) => state.shares.some((s) => s.name === name),
      username: (id) => state.users.find((u) => u.id === id)?.username ?? null,
      existingUserIds: (ids) => exists(ids, (id) => state.users.some((u) => u.id === id)),
      existingGroupIds: (ids) => exists(ids, (id) => state.groups.some((g) => g.id === id)),
      existingShareNames: (names) => exists(names, (n) => state.shares.some((s) => s.name === n)),
      replaceShareRows(shareName, users, groups) {
        state.userGrants = state.userGrants
          .filter((g) => g.shareName !== shareName)
          .concat(users.map((g) => ({ shareName, ...g })));
        state.groupGrants = state.groupGrants
          .filter((g) => g.shareName !== shareName)
          .concat(groups.map((g) => ({ shareName, ...g })));
      },
      replaceUserRows(userId, grants) {
        state.userGrants = state.userGrants
          .filter((g) => g.userId !== userId)
          .concat(grants.map((g) => ({ userId, ...g })));
      },
      readShareRows: (shareName) => ({
        users: state.userGrants
          .filter((g) => g.shareName === shareName)
          .map((g) => ({
            userId: g.userId,
            username: state.users.find((u) => u.id === g.userId)?.username ?? '',
            access: g.access,
          })),
        groups: state.groupGrants
          .filter((g) => g.shareName === shareName)
          .map((g) => ({ groupId: g.groupId, name: g.groupId, access: g.access })),
      }),
      readUserRows: (userId) =>
        state.userGrants
          .filter((g) => g.userId === userId)
          .map(({ shareName, access }) => ({ shareName, access })),
    },
    snapshot: () => ({
      shares: state.shares.map((s) => ({ name: s.name, smb: s.smb })),
      users: state.users,
      groups: state.groups,
      userGrants: state.userGrants,
      groupGrants: state.groupGrants,
    }),
  };
}

export interface MemorySharePorts extends ShareOperationPorts {
  state: MemoryShareState;
  /** How many regenerations ran. */
  regenerations: () => number;
}

/**
 * The operations' ports in memory. `regenerate` is what a regeneration does (default: nothing;
 * make it throw to inject a failure); `busy` names the shares whose data delete runs.
 */
export function memorySharePorts(options: {
  paths: HostPaths;
  state: MemoryShareState;
  now?: () => string;
  regenerate?: () => Promise<void>;
  busy?: (name: string) => boolean;
}): MemorySharePorts {
  let regenerations = 0;
  let tail: Promise<unknown> = Promise.resolve();
  const ports: MemorySharePorts = {
    state: options.state,
    regenerations: () => regenerations,
    paths: options.paths,
    now: options.now ?? (() => new Date().toISOString()),
    read: memoryShareStore(options.state),
    async write(fn, afterCommit) {
      // a copy is changed and swapped in: a throw commits nothing
      const draft: MemoryShareState = structuredClone(ports.state);
      const tx: ShareTx = {
        ...memoryShareStore(draft),
        audit: (entry) => {
          const id = draft.audit.length + 1;
          draft.audit.push({ ...entry, id });
          return id;
        },
      };
      const result = fn(tx);
      Object.assign(ports.state, draft);
      await afterCommit(result);
      return result;
    },
    serialize<T>(fn: () => Promise<T>): Promise<T> {
      const run = tail.then(fn, fn);
      tail = run.catch(() => undefined);
      return run;
    },
    dataDeleteRunning: options.busy ?? (() => false),
    samba: {
      async regenerate() {
        regenerations += 1;
        await options.regenerate?.();
      },
      async markPartial(auditId) {
        const row = ports.state.audit.find((a) => a.id === auditId);
        if (row) row.outcome = 'partial';
      },
      log: () => undefined,
    },
  };
  return ports;
}
