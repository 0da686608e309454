import type { Clock } from '@appliance/common';
import type { GroupRow, GroupsStore, GroupsTx, GroupsView } from '../operations/groups.ts';
import type { SetupEvent, SetupStore } from '../operations/setup.ts';
import type { TokensStore, TokensTx } from '../operations/tokens.ts';
import type { UsersStore, UsersTx, UsersView } from '../operations/users.ts';
import type {
  AuditEntry,
  CredentialStore,
  NewSession,
  Random,
  SessionRow,
  SessionStore,
  TokenRow,
  UserRow,
} from '../ports.ts';

/** The tables the accounts operations touch, in memory. */
export interface AccountsState {
  users: UserRow[];
  tokens: TokenRow[];
  sessions: NewSession[];
  groups: GroupRow[];
  members: Array<{ groupId: string; userId: string }>;
  /** Share grants of users and groups (only their removal is observed). */
  userGrants: Array<{ share: string; userId: string }>;
  groupGrants: Array<{ share: string; groupId: string }>;
  audit: AuditEntry[];
  /** Events raised inside a write (they commit with it). */
  alerts: SetupEvent[];
}

const lower = (s: string) => s.toLowerCase();

/**
 * In-memory stores of every `@appliance/accounts` port, over one shared state. A write runs on a
 * copy of the state that replaces it only when the write returns (a refusal inside writes nothing),
 * and clears the credential watchers as the server's triggers do.
 */
export class MemoryAccounts {
  state: AccountsState = {
    users: [],
    tokens: [],
    sessions: [],
    groups: [],
    members: [],
    userGrants: [],
    groupGrants: [],
    audit: [],
    alerts: [],
  };
  /** The appliance's host name (its settings). */
  hostname = 'nas';
  /** Events raised within a write and announced after its commit. */
  readonly announced: SetupEvent[] = [];
  /** Bumped to simulate a commit by another connection. */
  foreignVersion = 0;
  /** Batches written by `recordUses`. */
  readonly recorded: Array<Array<{ tokenId: string; at: string }>> = [];
  private readonly watchers: Array<() => void> = [];

  /** Runs `fn` on a copy of the state; commits it when `fn` returns. */
  private write<T>(fn: (state: AccountsState) => T): Promise<T> {
    try {
      const copy = structuredClone(this.state);
      const result = fn(copy);
      const changed =
        JSON.stringify([copy.users, copy.tokens]) !== JSON.stringify([this.state.users, this.state.tokens]);
      this.state = copy;
      if (changed) for (const w of this.watchers) w();
      return Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  credentials(): CredentialStore {
    return {
      findCredential: (digest) => {
        const t = this.state.tokens.find((x) => x.tokenHash === digest);
        if (!t) return undefined;
        const u = this.state.users.find((x) => x.id === t.userId);
        return {
          tokenId: t.id,
          tokenHash: t.tokenHash,
          tokenRole: t.role,
          expiresAt: t.expiresAt,
          userId: t.userId,
          username: u?.username ?? (null as unknown as string),
          userRole: u?.role ?? null,
        };
      },
      admin: () => this.state.users.find((u) => u.role === 'admin'),
      findByUsername: (name) => this.state.users.find((u) => lower(u.username) === lower(name)),
      recordUses: (uses) =>
        this.write((s) => {
          this.recorded.push([...uses]);
          for (const { tokenId, at } of uses) {
            const t = s.tokens.find((x) => x.id === tokenId);
            if (t && (t.lastUsedAt === null || t.lastUsedAt < at)) t.lastUsedAt = at;
          }
        }),
      watch: (onChange) => {
        this.watchers.push(onChange);
        return () => this.foreignVersion;
      },
    };
  }

  sessions(): SessionStore {
    return {
      open: (session, ended) =>
        this.write((s) => {
          s.sessions = s.sessions.filter(
            (x) => x.expiresAt > ended.expiresBy && x.lastUsedAt > ended.idleSince,
          );
          s.sessions.push(session);
        }),
      find: (secretHash): SessionRow | undefined => {
        const row = this.state.sessions.find((x) => x.secretHash === secretHash);
        if (!row) return undefined;
        const u = this.state.users.find((x) => x.id === row.userId);
        return { ...row, username: u?.username ?? null, role: u?.role ?? null };
      },
      touch: (id, at) =>
        this.write((s) => {
          const row = s.sessions.find((x) => x.id === id);
          if (row) row.lastUsedAt = at;
        }),
      end: (secretHash) =>
        this.write((s) => {
          const before = s.sessions.length;
          s.sessions = s.sessions.filter((x) => x.secretHash !== secretHash);
          return s.sessions.length < before;
        }),
    };
  }

  private usersView(s: () => AccountsState): UsersView {
    return {
      list: () => [...s().users].sort((a, b) => (lower(a.username) < lower(b.username) ? -1 : 1)),
      find: (id) => s().users.find((u) => u.id === id),
      nameTaken: (name) => s().users.some((u) => lower(u.username) === lower(name)),
    };
  }

  private usersTx(s: AccountsState): UsersTx {
    return {
      ...this.usersView(() => s),
      insert: (row) => (s.users.push({ ...row }), { ...row }),
      update: (id, patch) => {
        const u = s.users.find((x) => x.id === id)!;
        Object.assign(u, patch);
        return { ...u };
      },
      deleteTokens: (userId) => {
        s.tokens = s.tokens.filter((t) => t.userId !== userId);
      },
      deleteUser: (userId) => {
        s.tokens = s.tokens.filter((t) => t.userId !== userId);
        s.members = s.members.filter((m) => m.userId !== userId);
        s.userGrants = s.userGrants.filter((g) => g.userId !== userId);
        s.users = s.users.filter((u) => u.id !== userId);
      },
      audit: (entry) => void s.audit.push(entry),
    };
  }

  users(): UsersStore {
    return {
      ...this.usersView(() => this.state),
      write: (fn) => this.write((s) => fn(this.usersTx(s))),
    };
  }

  /** The setup store; `notifications: false` gives no `raiseWithin` (the event is raised after). */
  setup(options: { notifications?: boolean } = {}): SetupStore {
    return {
      admin: () => this.state.users.find((u) => u.role === 'admin'),
      nameTaken: this.usersView(() => this.state).nameTaken,
      write: (fn) =>
        this.write((s) =>
          fn({
            ...this.usersTx(s),
            admin: () => s.users.find((u) => u.role === 'admin'),
            revokeTokens: (userId) => {
              const before = s.tokens.length;
              s.tokens = s.tokens.filter((t) => t.userId !== userId);
              return before - s.tokens.length;
            },
            hostname: () => this.hostname,
            raiseWithin: (event) => {
              if (options.notifications === false) return null;
              s.alerts.push(event);
              return { announce: () => void this.announced.push(event) };
            },
          }),
        ),
    };
  }

  tokens(): TokensStore {
    return {
      findUser: (id) => this.state.users.find((u) => u.id === id),
      list: (ownerId) =>
        this.state.tokens
          .filter((t) => ownerId === null || t.userId === ownerId)
          .map((token) => ({
            token,
            username: this.state.users.find((u) => u.id === token.userId)?.username,
          }))
          .filter((r): r is { token: TokenRow; username: string } => r.username !== undefined)
          .sort((a, b) =>
            a.token.createdAt === b.token.createdAt
              ? a.token.id < b.token.id
                ? 1
                : -1
              : a.token.createdAt < b.token.createdAt
                ? 1
                : -1,
          ),
      write: (fn) =>
        this.write((s) => {
          const tx: TokensTx = {
            countTokens: (userId) => s.tokens.filter((t) => t.userId === userId).length,
            insert: (row) => {
              const full = { ...row, lastUsedAt: null };
              s.tokens.push(full);
              return { ...full };
            },
            revoke: (id, ownerId) => {
              const t = s.tokens.find((x) => x.id === id && (ownerId === null || x.userId === ownerId));
              if (!t) return undefined;
              s.tokens = s.tokens.filter((x) => x !== t);
              return { id: t.id };
            },
            audit: (entry) => void s.audit.push(entry),
          };
          return fn(tx);
        }),
    };
  }

  private groupsView(s: () => AccountsState): GroupsView {
    return {
      list: () => [...s().groups].sort((a, b) => (lower(a.name) < lower(b.name) ? -1 : 1)),
      memberships: () => s().members.map((m) => ({ ...m })),
      find: (id) => s().groups.find((g) => g.id === id),
      members: (groupId) =>
        s()
          .members.filter((m) => m.groupId === groupId)
          .map((m) => m.userId),
    };
  }

  groups(): GroupsStore {
    return {
      ...this.groupsView(() => this.state),
      write: (fn) =>
        this.write((s) => {
          const tx: GroupsTx = {
            ...this.groupsView(() => s),
            nameTaken: (name) => s.groups.some((g) => lower(g.name) === lower(name)),
            insert: (row) => void s.groups.push({ ...row }),
            delete: (id) => {
              s.members = s.members.filter((m) => m.groupId !== id);
              s.groupGrants = s.groupGrants.filter((g) => g.groupId !== id);
              s.groups = s.groups.filter((g) => g.id !== id);
            },
            knownUsers: (ids) => new Set(s.users.filter((u) => ids.includes(u.id)).map((u) => u.id)),
            setMembers: (groupId, userIds) => {
              s.members = s.members.filter((m) => m.groupId !== groupId);
              for (const userId of userIds) s.members.push({ groupId, userId });
            },
            audit: (entry) => void s.audit.push(entry),
          };
          return fn(tx);
        }),
    };
  }
}

/** A clock the test moves. */
export function manualClock(
  start = '2026-11-25T10:00:00.000Z',
): Clock & { set(d: Date | string): void; advance(ms: number): void } {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (d) => {
      now = new Date(d).getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Counting ids (`id-1`, `id-2`, …) and bytes (each call a different fill). */
export function countingRandom(): Random {
  let n = 0;
  let b = 0;
  return {
    uuid: () => `id-${++n}`,
    bytes: (size) => Buffer.alloc(size, ++b),
  };
}
