import type { Clock } from '@appliance/common';
import { refuse } from '@appliance/common';
import { forbidden, userNotFound } from '../core/refusals.ts';
import { type Actor, roleAtLeast } from '../core/roles.ts';
import { generateToken, tokenHash } from '../core/tokens.ts';
import type { AuditEntry, TokenRow, UserRow } from '../ports.ts';

/** The most API tokens one account may hold. */
export const MAX_TOKENS_PER_ACCOUNT = 100;

/** A token as the API lists it (never its secret or hash). */
export interface TokenView {
  id: string;
  name: string;
  role: 'admin' | 'viewer';
  userId: string;
  username: string;
  createdAt: string;
  expiresAt: string | null;
  /** The last request made with the token, exact to within a minute; null when never used. */
  lastUsedAt: string | null;
}

/** One write transaction of the token operations; the audit row joins it. */
export interface TokensTx {
  countTokens(userId: string): number;
  insert(row: Omit<TokenRow, 'lastUsedAt'>): TokenRow;
  /** Deletes the token `id`, only if `ownerId` owns it when given; the deleted row, if any. */
  revoke(id: string, ownerId: string | null): { id: string } | undefined;
  audit(entry: AuditEntry): void;
}

export interface TokensStore {
  findUser(id: string): UserRow | undefined;
  /** Tokens with their owner's name, newest first; only `ownerId`'s when given. */
  list(ownerId: string | null): Array<{ token: TokenRow; username: string }>;
  write<T>(fn: (tx: TokensTx) => T): Promise<T>;
}

export interface TokensDeps {
  store: TokensStore;
  clock: Clock;
  random: { uuid(): string; bytes(n: number): Buffer };
  /** Token uses noted since the start (token-usage.ts), later than the stored ones. */
  usage: { lastUsedAt(tokenId: string, stored: string | null): string | null };
}

export interface IssueTokenInput {
  name: string;
  role: 'admin' | 'viewer';
  expiresInSeconds?: number | undefined;
  /** Another account's id (the administrator only). */
  userId?: string | undefined;
}

/**
 * Creates a personal API token for the caller (or, for the administrator, for another account).
 * A file-sharing account has none; a token's role is at most its creator's and its owner's; an
 * account holds at most MAX_TOKENS_PER_ACCOUNT. The secret is answered once, only its hash stored.
 */
export async function issueToken(
  deps: TokensDeps,
  caller: Actor,
  input: IssueTokenInput,
): Promise<TokenView & { token: string }> {
  if (input.userId !== undefined && caller.role !== 'admin') {
    throw forbidden('Only the administrator may create tokens for another account.');
  }
  const ownerId = input.userId ?? caller.userId;
  if (!ownerId) throw refuse('setup_required', 'Create the administrator first.');
  const owner = deps.store.findUser(ownerId);
  if (!owner) throw userNotFound(ownerId);
  if (owner.role === 'share-only') {
    throw refuse('share_only_no_api_token', 'A file-sharing account cannot have API tokens.');
  }
  if (!roleAtLeast(caller.role, input.role) || !roleAtLeast(owner.role, input.role)) {
    throw refuse(
      'token_role_exceeds_caller',
      `A ${input.role} token needs an account with at least that role; ask for a viewer token instead.`,
    );
  }
  const raw = generateToken(deps.random.bytes);
  const now = deps.clock.now();
  const expiresAt = input.expiresInSeconds
    ? new Date(now.getTime() + input.expiresInSeconds * 1000).toISOString()
    : null;
  const row = await deps.store.write((tx) => {
    if (tx.countTokens(owner.id) >= MAX_TOKENS_PER_ACCOUNT) {
      throw refuse(
        'token_limit_reached',
        `This account already has ${MAX_TOKENS_PER_ACCOUNT} tokens; revoke one first.`,
      );
    }
    const inserted = tx.insert({
      id: deps.random.uuid(),
      tokenHash: tokenHash(raw),
      userId: owner.id,
      name: input.name,
      role: input.role,
      createdAt: now.toISOString(),
      expiresAt,
    });
    tx.audit({
      operation: 'token.create',
      target: owner.username,
      details: { tokenId: inserted.id, name: input.name, role: input.role },
    });
    return inserted;
  });
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    userId: owner.id,
    username: owner.username,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: null,
    token: raw,
  };
}

/** Tokens, newest first: all of them for the administrator, a viewer's own otherwise. */
export function listTokens(deps: TokensDeps, caller: Actor): TokenView[] {
  const rows = deps.store.list(caller.role === 'admin' ? null : (caller.userId ?? ''));
  return rows.map(({ token: t, username }) => ({
    id: t.id,
    name: t.name,
    role: t.role,
    userId: t.userId,
    username,
    createdAt: t.createdAt,
    expiresAt: t.expiresAt,
    lastUsedAt: deps.usage.lastUsedAt(t.id, t.lastUsedAt),
  }));
}

/** Revokes a token: any for the administrator, only one's own for a viewer (`token_not_found`). */
export async function revokeToken(deps: TokensDeps, caller: Actor, id: string): Promise<void> {
  await deps.store.write((tx) => {
    const row = tx.revoke(id, caller.role === 'admin' ? null : (caller.userId ?? ''));
    if (!row) throw refuse('token_not_found', `No token of yours has the id ${id}.`);
    tx.audit({ operation: 'token.revoke', target: id });
  });
}
