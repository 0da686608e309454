import { clearTempRoot } from '@appliance/archive-preview';
import type { Authenticator } from '@appliance/accounts';
import type { Feature } from '../feature.ts';
import { exportRoute } from './export-route.ts';
import { VERSION } from '../../version.ts';
import { importRoute } from './import-route.ts';
import { previewRoute } from './preview-route.ts';

let version = '0.0.0';

/** Config export, import preview and import (01, 08 §14). */
export function configArchiveFeature(auth: Authenticator): Feature {
  return {
    name: 'config-archive',
    // A leftover temp directory from a crash is removed at startup (01 §4.12); an interrupted
    // import was already rolled back or finished by the server before the features start.
    start: async (ctx) => {
      version = VERSION;
      await clearTempRoot(ctx.paths);
    },
    routes: [
      exportRoute(() => version),
      previewRoute,
      importRoute(
        () => version,
        () => auth.resetAdminCache(),
      ),
    ],
  };
}
