import { Authenticator, type Lockout, type Passwords } from '@appliance/accounts';
import type { AppContext } from '../../context.ts';
import { raiseEvent } from '../ports.ts';
import { createCredentialStore, createSessionStore } from './store.ts';

/** The service's authenticator: `@appliance/accounts` over the SQLite stores and the context. */
export function createAuthenticator(ctx: AppContext, passwords: Passwords, lockout: Lockout): Authenticator {
  return new Authenticator({
    credentials: createCredentialStore(ctx),
    sessions: createSessionStore(ctx),
    // Read at each use, as before the move (a test may swap the context's clock or random source).
    clock: { now: () => ctx.clock.now() },
    random: { uuid: () => ctx.random.uuid(), bytes: (n) => ctx.random.bytes(n) },
    passwords,
    lockout,
    raise: raiseEvent(ctx),
  });
}
