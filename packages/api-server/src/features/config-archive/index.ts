import { clearTempRoot } from '@appliance/archive-preview';
import type { Feature } from '../feature.ts';
import { exportRoute } from './export-route.ts';
import { previewRoute } from './preview-route.ts';

let version = '0.0.0';

/** Config export and import preview (01). */
export const feature: Feature = {
  name: 'config-archive',
  // A leftover temp directory from a crash is removed at startup (01 §4.12).
  start: async (ctx) => {
    version = (await import('../../server.ts')).VERSION;
    await clearTempRoot(ctx.paths);
  },
  routes: [exportRoute(() => version), previewRoute],
};
