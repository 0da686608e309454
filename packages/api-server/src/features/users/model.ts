import { checkNewUsername as check, hostAccountExists } from '@appliance/accounts';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { Iso } from '../../http/schemas.ts';
import { usersView } from './store.ts';

export { toUser } from '@appliance/accounts';

export const UserSchema = v.object({
  id: v.string(),
  username: v.string(),
  role: v.picklist(['admin', 'viewer', 'share-only']),
  hasPassword: v.boolean(),
  createdAt: Iso,
  updatedAt: Iso,
});

/**
 * Refuses a name taken by a user or by a host account (`@appliance/accounts`' `checkNewUsername`
 * on this handle and the host's passwd file; `host: false` skips the host check).
 */
export function checkNewUsername(
  ctx: AppContext,
  db: Db,
  username: string,
  options: { host?: boolean } = {},
): void {
  check(usersView(db), (name) => hostAccountExists(ctx.paths.etcPasswd, name), username, options);
}
