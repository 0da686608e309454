/**
 * The shares feature (08 §6, 06): share definitions, share access from both sides, and smb.conf.
 * `start` installs `ctx.hooks.regenerateSamba` (other features call it after user/group deletion
 * and membership changes) and regenerates once at startup.
 */
import type { AppContext } from '../../context.ts';
import type { Feature } from '../feature.ts';
import { permissionRoutes } from './permission-routes.ts';
import { createSambaConfig } from './regenerate.ts';
import { shareRoutes } from './share-routes.ts';

export { createSambaConfig, regenerateAfter } from './regenerate.ts';
export { loadAccessSnapshot, permissionStore } from './store.ts';

/** Installs the coalescing smb.conf regenerator as `ctx.hooks.regenerateSamba`. */
export async function startShares(ctx: AppContext): Promise<() => Promise<void>> {
  const samba = createSambaConfig(ctx);
  ctx.hooks.regenerateSamba = async () => {
    await samba.regenerator.regenerate();
    // what the service wrote, for the drift watcher (issue 22)
    ctx.generated.recordQuietly(ctx.paths.sambaConf);
  };
  ctx.hooks.reloadSamba = () => samba.reload();
  // Once at startup (06 §5.3); a failure is logged, the server still starts.
  await samba.regenerator
    .regenerate()
    .then(() => ctx.generated.recordQuietly(ctx.paths.sambaConf))
    .catch((err: unknown) =>
      ctx.logger.error('smb.conf regeneration at startup failed', { error: String(err) }),
    );
  return () => samba.stop();
}

export const feature: Feature = {
  name: 'shares',
  routes: [...shareRoutes, ...permissionRoutes],
  start: startShares,
};
