import { type Authenticator, hostAccountExists, type SetupDeps } from '@appliance/accounts';
import type { AppContext } from '../../context.ts';
import { raiseEvent } from '../ports.ts';
import type { Actor } from '../../services/audit.ts';
import { createSetupStore } from './store.ts';

/** The ports of the setup operations, wired to the server's context for one request. */
export function setupDeps(ctx: AppContext, actor: Actor | null, auth: Authenticator): SetupDeps {
  return {
    store: createSetupStore(ctx, actor),
    auth,
    hostAccountExists: (username) => hostAccountExists(ctx.paths.etcPasswd, username),
    samba: ctx.hooks.sambaAccounts,
    raise: raiseEvent(ctx),
    clock: ctx.clock,
    random: ctx.random,
  };
}
