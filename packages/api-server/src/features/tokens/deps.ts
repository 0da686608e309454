import type { Authenticator, TokensDeps } from '@appliance/accounts';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { createTokensStore } from './store.ts';

/** The ports of the token operations, wired to the server's context for one request. */
export function tokensDeps(ctx: AppContext, actor: Actor | null, auth: Authenticator): TokensDeps {
  return { store: createTokensStore(ctx, actor), clock: ctx.clock, random: ctx.random, usage: auth.usage };
}
