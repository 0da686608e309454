import { Refusal } from '@appliance/common';
import { Authenticator } from '../authenticator.ts';
import type { AccountRole } from '../core/roles.ts';
import { generateToken, tokenHash } from '../core/tokens.ts';
import { Lockout } from '../lockout.ts';
import { HashQueue, Passwords, SCRYPT } from '../passwords.ts';
import type { UserRow } from '../ports.ts';
import { countingRandom, MemoryAccounts, manualClock } from './memory-store.ts';

/** scrypt with N = 2^4: the same code, fast enough for unit tests. */
export const fastPasswords = () => new Passwords(new HashQueue(), { ...SCRYPT, ln: 4 });

/** An authenticator over in-memory stores, a manual clock and counting randomness. */
export function accountsFixture() {
  const store = new MemoryAccounts();
  const clock = manualClock();
  const random = countingRandom();
  const passwords = fastPasswords();
  const lockout = new Lockout(() => clock.now().getTime());
  const raised: Array<{ eventType: string; message: string }> = [];
  const auth = new Authenticator({
    credentials: store.credentials(),
    sessions: store.sessions(),
    clock,
    random,
    passwords,
    lockout,
    raise: async (e) => void raised.push(e),
  });
  let n = 0;
  /** Adds a user (with a hashed password when given) and returns its row. */
  async function addUser(username: string, role: AccountRole, password?: string): Promise<UserRow> {
    const at = clock.now().toISOString();
    const row: UserRow = {
      id: `user-${++n}`,
      username,
      role,
      passwordHash: password === undefined ? null : await passwords.hash(password),
      createdAt: at,
      updatedAt: at,
    };
    store.state.users.push(row);
    return row;
  }
  /** Adds a token for a user and returns its secret. */
  function addToken(userId: string, role: 'admin' | 'viewer', expiresAt: string | null = null): string {
    const raw = generateToken();
    store.state.tokens.push({
      id: `token-${++n}`,
      tokenHash: tokenHash(raw),
      userId,
      name: 'test',
      role,
      createdAt: clock.now().toISOString(),
      expiresAt,
      lastUsedAt: null,
    });
    return raw;
  }
  return { store, clock, random, passwords, lockout, raised, auth, addUser, addToken };
}

/** What an operation's promise came to: `ok`, a refusal's code, or the other error as text. */
export const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof Refusal ? e.code : String(e)),
  );
