/**
 * The shares feature (08 §6, 06): share definitions, share access from both sides, and smb.conf.
 * `start` installs `ctx.hooks.regenerateSamba` (other features call it after user/group deletion
 * and membership changes) and regenerates once at startup. The operations are @appliance/shares'.
 */
import { sambaServiceFor } from '@appliance/shares';
import type { AppContext } from '../../context.ts';
import type { Feature } from '../feature.ts';
import { sambaOptions } from './deps.ts';
import { permissionRoutes } from './permission-routes.ts';
import { shareRoutes } from './share-routes.ts';

export { sambaGlobals } from './deps.ts';
export { loadAccessSnapshot, permissionStore } from './store.ts';

/** Installs the coalescing smb.conf regenerator as `ctx.hooks.regenerateSamba`. */
export async function startShares(ctx: AppContext): Promise<() => Promise<void>> {
  const samba = sambaServiceFor(sambaOptions(ctx), () => ctx.generated.recordQuietly(ctx.paths.sambaConf));
  ctx.hooks.regenerateSamba = samba.regenerate;
  ctx.hooks.reloadSamba = samba.reload;
  await samba.start();
  return samba.stop;
}

export const feature: Feature = {
  name: 'shares',
  routes: [...shareRoutes, ...permissionRoutes],
  start: startShares,
};
