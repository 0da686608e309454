import { hostAccountExists, type Passwords, type UsersDeps } from '@appliance/accounts';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { createUsersStore } from './store.ts';

/** The ports of the users operations, wired to the server's context for one request. */
export function usersDeps(ctx: AppContext, actor: Actor | null, passwords: Passwords): UsersDeps {
  return {
    store: createUsersStore(ctx, actor),
    passwords,
    hostAccountExists: (username) => hostAccountExists(ctx.paths.etcPasswd, username),
    samba: ctx.hooks.sambaAccounts,
    regenerateSamba: () => ctx.hooks.regenerateSamba(),
    clock: ctx.clock,
    random: ctx.random,
  };
}
