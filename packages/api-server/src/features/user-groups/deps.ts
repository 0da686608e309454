import type { GroupsDeps } from '@appliance/accounts';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { createGroupsStore } from './store.ts';

/** The ports of the user-group operations, wired to the server's context for one request. */
export function groupsDeps(ctx: AppContext, actor: Actor | null): GroupsDeps {
  return {
    store: createGroupsStore(ctx, actor),
    clock: ctx.clock,
    random: ctx.random,
    regenerateSamba: () => ctx.hooks.regenerateSamba(),
  };
}
