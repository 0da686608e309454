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

export { createSambaConfig, regenerateAfter, sambaGlobals, sambaMode } from './regenerate.ts';
export { loadAccessSnapshot, permissionStore } from './store.ts';

/** Installs the coalescing smb.conf regenerator as `ctx.hooks.regenerateSamba`. */
export async function startShares(ctx: AppContext): Promise<() => Promise<void>> {
  const samba = createSambaConfig(ctx);
  ctx.hooks.regenerateSamba = async () => {
    await samba.regenerator.regenerate();
    // what the service wrote, for the drift watcher (issue 22)
    ctx.generated.recordQuietly(ctx.paths.sambaConf);
    // a grant is answered once smbd has loaded it: the user's next connection gets in (issue 32)
    await samba.settle();
  };
  ctx.hooks.reloadSamba = () => samba.reload();
  // The sandbox's Samba directories first: the file names them and testparm checks they exist.
  await samba.smbd?.prepare().catch((err: unknown) => {
    throw new Error(`The sandboxed smbd cannot start: ${(err as Error).message}`);
  });
  // Once at startup (06 §5.3); a failure is logged, the server still starts …
  const regenerated = await samba.regenerator.regenerate().then(
    () => {
      ctx.generated.recordQuietly(ctx.paths.sambaConf);
      return null;
    },
    (err: unknown) => {
      ctx.logger.error('smb.conf regeneration at startup failed', { error: String(err) });
      return err;
    },
  );
  if (samba.smbd) {
    // … except with its own smbd: without the sandbox's file, smbd and smbpasswd would use the
    // machine's Samba directories.
    if (regenerated !== null)
      throw new Error(
        `The sandboxed smbd cannot start: ${ctx.paths.sambaConf} could not be generated (see the log). Fix the cause and start the service again.`,
      );
    await samba.smbd.start().catch((err: unknown) => {
      throw new Error(`The sandboxed smbd could not start: ${(err as Error).message}`);
    });
  }
  return () => samba.stop();
}

export const feature: Feature = {
  name: 'shares',
  routes: [...shareRoutes, ...permissionRoutes],
  start: startShares,
};
