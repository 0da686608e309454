import type { Clock } from '@appliance/common';
import type { CredentialChanges } from './credential-cache.ts';
import type { AccountRole } from './core/roles.ts';
import type { RecordUses } from './token-usage.ts';

export type { CredentialChanges } from './credential-cache.ts';
export type { RecordUses } from './token-usage.ts';

/** Random ids and secrets (the server passes `crypto.randomUUID` and `crypto.randomBytes`). */
export interface Random {
  uuid(): string;
  bytes(n: number): Buffer;
}

/** A stored account (the `users` row). */
export interface UserRow {
  id: string;
  username: string;
  role: AccountRole;
  passwordHash: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A stored API token (the `api_tokens` row; only the token's SHA-256 is kept). */
export interface TokenRow {
  id: string;
  tokenHash: string;
  userId: string;
  name: string;
  role: 'admin' | 'viewer';
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** An audit row written in the same transaction as the change it records. */
export interface AuditEntry {
  operation: string;
  target: string;
  details?: Record<string, unknown>;
}

/** A token row with its owner's username and role (null when the owner is gone). */
export interface CredentialRow {
  tokenId: string;
  tokenHash: string;
  tokenRole: 'admin' | 'viewer';
  expiresAt: string | null;
  userId: string;
  username: string;
  userRole: AccountRole | null;
}

/**
 * What authentication reads and writes. The reads are synchronous: a bearer request is the
 * server's hottest path (one prepared statement, no promise).
 */
export interface CredentialStore extends CredentialChanges {
  /** The token whose SHA-256 is `digest`, with its owner. */
  findCredential(digest: string): CredentialRow | undefined;
  /** The administrator account, if one exists. */
  admin(): Pick<UserRow, 'id' | 'username'> | undefined;
  /** An account by name, compared ignoring case. */
  findByUsername(username: string): UserRow | undefined;
  /** Stores tokens' last use (absent ids change nothing; an earlier time never overwrites). */
  recordUses: RecordUses;
}

/** A browser session as stored (only the SHA-256 of its secret), with its owner. */
export interface SessionRow {
  id: string;
  secretHash: string;
  lastUsedAt: string;
  expiresAt: string;
  userId: string;
  username: string | null;
  role: AccountRole | null;
}

export interface NewSession {
  id: string;
  secretHash: string;
  userId: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
}

export interface SessionStore {
  /** In one write: removes the sessions that ended (`expiresAt` or `lastUsedAt` at or before the
   * given times), then inserts the new one. */
  open(session: NewSession, ended: { expiresBy: string; idleSince: string }): Promise<void>;
  /** The session whose secret hashes to `secretHash`, with its owner (synchronous: every request). */
  find(secretHash: string): SessionRow | undefined;
  /** Sets `lastUsedAt` (fire and forget: a failure only loses the touch). */
  touch(id: string, at: string): Promise<unknown>;
  /** Deletes the session; true when one was found. */
  end(secretHash: string): Promise<boolean>;
}

/** A notification event (the server's `raise` hook; absent before notifications start). */
export type RaiseEvent = (event: {
  eventType: string;
  title: string;
  message: string;
}) => Promise<void> | undefined;

/** The Samba/Unix account of a user (absent where the appliance manages no Samba accounts). */
export interface SambaAccounts {
  setPassword(username: string, password: string): Promise<void>;
  remove(username: string): Promise<void>;
}

export type { Clock };
